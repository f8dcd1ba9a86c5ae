package org.paratrain.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.paratrain.cli.experiment.TrainingData;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.ModelFile;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.RunWriter;
import org.paratrain.model.Metrics;
import org.paratrain.train.Backend;
import org.paratrain.train.FailureInjection;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.spec.DataSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * A run of {@code train} trained in this JVM on the whole data (the local backend, or a rank of
 * an MPI job whose ranks each read every sample): the training, with restarts on the local
 * backend, and its end, where rank 0 prints the summary and the test metrics and writes the
 * run's files with what only this path knows (test metrics, validation, restarts, init_from).
 * Apart from {@link TrainCommand}, which turns the options into a run and picks where it trains;
 * {@link ShardTraining} and {@link SparkDriver} train and report the other ways, and all three
 * write through {@link TrainReport}.
 */
final class WholeDataTraining {
    private WholeDataTraining() { }

    /**
     * Trains here (local backend, or this rank of an MPI job), with restarts on the local
     * backend; if the run fails for good, the history of the epochs it completed is written.
     */
    static TrainingResult train(TrainCommand c, Attempts attempts, JsonNode meta, TrainingData prepared, int classes,
                                TrainSpec spec, TrainingState resumed) {
        Dataset data = prepared.train();
        TrainingControl.Validation validation = prepared.validation() == null ? null
            : c.monitor.validation(prepared.validation(), spec.model().newModel(data.features(), classes),
                spec.run().lossReduction());
        FailureInjection failure = c.injectFailure == null ? null : FailureInjection.parse(c.injectFailure);
        boolean rankZero = Backend.mpiRankFromEnvironment() == 0;
        try (MonitorOptions.Display display = c.monitor.display(spec.epochs(), spec.totalSteps(data) / spec.epochs(),
            c.out(), rankZero ? c.err() : null, attempts.listener())) {
            TrainingControl.EpochListener listener = rankZero ? display : attempts.listener();
            if (c.backendOptions.isMpi()) {
                return c.checkpoints.onMpiRank(meta, resumed, listener, control -> FailureInjection.mpi(data, spec,
                    control.withValidation(validation), failure));
            }
            return attempts.runLocal(spec.nodes(), resumed, listener, (nodes, control, first) ->
                FailureInjection.local(data, spec.withNodes(nodes), control.withValidation(validation),
                    first ? failure : null));
        } catch (RuntimeException e) {
            attempts.writePartialHistory(c.out);
            throw e;
        }
    }

    /** Prints the result and the test metrics, and writes result.json, history.csv and model.json into --out. */
    static void report(TrainCommand c, TrainingResult r, TrainSpec spec, DataSpec dataSpec, ModelFile file,
                       TrainingData prepared, Attempts attempts, Provenance provenance) {
        org.paratrain.train.Divergence.checkFinal(r, spec.optimizer().learningRate());
        TrainReport.print(c.out(), c.learning.model, prepared.train().samples(), prepared.train().features(), r,
            c.epochs);
        java.util.Map<String, Object> test = prepared.test() == null ? null : Metrics.evaluate(file.newModel(),
            r.params(), prepared.test(), file.classNames() == null ? null : file.classNames().names());
        if (test != null) {
            c.out().println("  test       " + Evaluate.format(test) + " (measured once, at the end)");
        }
        if (c.out == null) {
            return;
        }
        ObjectNode d = TrainingData.record(dataSpec, prepared.train().samples(), prepared.train().features());
        ObjectNode extra = RunWriter.json().createObjectNode();
        if (test != null) {
            extra.set("test_metrics", RunWriter.json().valueToTree(test));
        }
        TrainReport.Best best = TrainReport.best(r.history());
        if (best != null) {
            ObjectNode v = extra.putObject("validation");
            v.put("samples", prepared.validation().samples());
            v.put("best_epoch", best.epoch());
            v.put("best_loss", best.loss());
            if (!Double.isNaN(best.accuracy())) {
                v.put("best_accuracy", best.accuracy());
            }
            v.put("kept_best", c.monitor.patience > 0);
        }
        if (!attempts.log().isEmpty()) {
            extra.set("restarts", attempts.log());
        }
        if (c.initRecord != null) {
            extra.set("init_from", c.initRecord);
        }
        TrainReport.write(c.out(), c.out, r, spec, file, d, extra, provenance);
    }
}
