package org.paratrain;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.time.Duration;
import org.paratrain.data.Dataset;
import org.paratrain.experiment.CheckpointRecords;
import org.paratrain.experiment.DataFingerprint;
import org.paratrain.experiment.Provenance;
import org.paratrain.experiment.SpecCodec;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingControl;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.TrainingState;
import org.paratrain.train.checkpoint.CheckpointStore;
import org.paratrain.train.checkpoint.CheckpointWriter;
import org.paratrain.train.spec.TrainSpec;

/**
 * How a {@link Trainer} runs what it was told: the checkpoint record, a checked resume, checked
 * initial parameters, the validation and the checkpoint writer around {@link Training#local}.
 * Kept apart from the chained settings, which only collect values.
 */
record TrainerRun(Dataset data, TrainingControl.EpochListener listener, Duration commTimeout, Dataset validation,
                  int validateEvery, int patience, Path checkpointDir, int checkpointEvery, Path resume, Path initFrom,
                  double[] initial, TrainingControl.Plateau plateau) {

    TrainingResult run(TrainSpec spec) {
        int k = spec.check(data);
        double[] start = initial(spec, k);
        JsonNode meta = checkpointDir == null && resume == null ? null : meta(spec);
        TrainingState state = resume == null ? null
            : CheckpointRecords.load(resume, meta, w -> System.err.println("paratrain: warning: " + w));
        TrainingControl.Validation v = validation(spec, k);
        if (checkpointDir == null) {
            return Training.local(data, spec, new TrainingControl(state, null, listener, commTimeout, v, start));
        }
        try (CheckpointWriter w = new CheckpointWriter(new CheckpointStore(checkpointDir, 2), meta, f -> { })) {
            return Training.local(data, spec, new TrainingControl(state,
                new TrainingControl.Checkpoints(checkpointEvery, 0, w), listener, commTimeout, v, start));
        }
    }

    /** The parameters to start from, checked against the model: from {@code initFrom}, or {@code initial}, or null. */
    private double[] initial(TrainSpec spec, int classes) {
        if (initFrom != null) {
            return org.paratrain.export.InitialParameters.read(initFrom, spec.model(), data.features(), classes)
                .params();
        }
        if (initial == null) {
            return null;
        }
        int n = spec.model().newModel(data.features(), classes).parameterCount();
        if (initial.length != n) {
            throw new IllegalArgumentException("initialParameters: " + initial.length + " numbers, the "
                + spec.model().kind() + " has " + n + " parameters");
        }
        for (int i = 0; i < n; i++) {
            if (!Double.isFinite(initial[i])) {
                throw new IllegalArgumentException("initialParameters: parameter " + i + " is " + initial[i]
                    + "; every parameter must be a finite number");
            }
        }
        return initial;
    }

    private JsonNode meta(TrainSpec spec) {
        return CheckpointRecords.meta(SpecCodec.encode(spec), DataFingerprint.of(data),
            Provenance.capture(java.util.List.of("Trainer")).toJson());
    }

    private TrainingControl.Validation validation(TrainSpec spec, int k) {
        if (validation == null) {
            if (patience > 0 || plateau != null) {
                throw new IllegalArgumentException((patience > 0 ? "earlyStop" : "reduceLearningRateOnPlateau")
                    + " needs validateOn(data, every)");
            }
            return null;
        }
        return TrainingControl.Validation.on(validation, spec.model().newModel(data.features(), k),
            spec.run().lossReduction(), validateEvery, patience).withPlateau(plateau);
    }
}
