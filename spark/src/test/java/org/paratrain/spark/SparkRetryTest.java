package org.paratrain.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.model.MultilayerPerceptron;
import org.paratrain.train.LossReduction;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.spec.ModelSpec;
import org.paratrain.train.spec.OptimizerSpec;
import org.paratrain.train.spec.RunSpec;
import org.paratrain.train.spec.TrainSpec;

/**
 * A task killed mid-run (Spark's own {@code killTaskAttempt}, the thread interrupted): Spark
 * retries the barrier stage, the new attempt's ranks resume from the newest checkpoint, and the
 * model is the bits of an uninterrupted run on one local rank.
 */
class SparkRetryTest {

    static org.paratrain.data.Dataset data(int n) {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
        double[] x = new double[4 * n];
        double[] y = new double[n];
        for (int i = 0; i < x.length; i++) {
            x[i] = rnd.nextGaussian();
        }
        for (int i = 0; i < n; i++) {
            y[i] = x[4 * i] * x[4 * i + 1] + x[4 * i + 2] > 0 ? 1 : 0;
        }
        return new org.paratrain.data.Dataset(x, y, n, 4);
    }

    /** The library's spec of {@link #estimator}: an MLP 4-32-2, Adam, batch 64. */
    static TrainSpec reference(int epochs) {
        return TrainSpec.paper().withModel(new ModelSpec.Mlp(List.of(32), MultilayerPerceptron.Activation.RELU,
                MultilayerPerceptron.Head.SOFTMAX, 2)).withLearningRate(0.003).withMethod(OptimizerSpec.Method.ADAM)
            .withRun(new RunSpec(new RunSpec.Nodes.Count(1), epochs, 64, 4, LossReduction.MEAN, 0));
    }

    /** Two ranks of that MLP, checkpointing every epoch. */
    static ParatrainClassifier estimator(int epochs) {
        return new ParatrainClassifier().setModel("mlp").setLayers("32").setActivation("relu").setLearningRate(0.003)
            .setEpochs(epochs).setBatchSize(64).setSeed(4).setNumRanks(2).setCheckpointInterval(1);
    }

    @Test
    void aKilledTaskMakesSparkRetryTheStageWhichResumesToTheSameBits(@TempDir Path dir) throws Exception {
        org.paratrain.data.Dataset data = data(20_000);
        int epochs = 12;
        TrainingResult local = Training.local(data, reference(epochs));

        SparkContext sc = SparkSessions.local3().sparkContext();
        Map<Integer, Long> barrierTasks = new ConcurrentHashMap<>();     // partition -> task id, newest stage
        long[] retriedAt = {0};
        SparkListener watch = new SparkListener() {
            @Override
            public void onTaskStart(SparkListenerTaskStart e) {
                barrierTasks.put(e.taskInfo().index(), e.taskInfo().taskId());
            }

            @Override
            public void onStageSubmitted(SparkListenerStageSubmitted e) {
                if (e.stageInfo().attemptNumber() > 0 && retriedAt[0] == 0) {
                    retriedAt[0] = System.nanoTime();
                }
            }
        };
        sc.addSparkListener(watch);
        long[] killedAt = {0};
        Thread killer = new Thread(() -> {
            try {
                // Kill rank 1's task once the run has saved its first checkpoint: mid-run.
                while (!Files.exists(dir) || org.paratrain.train.checkpoint.CheckpointStore.files(dir).isEmpty()) {
                    Thread.sleep(5);
                }
                killedAt[0] = System.nanoTime();
                sc.killTaskAttempt(barrierTasks.get(1), true, "killed by the test");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        killer.setDaemon(true);
        killer.start();
        try {
            ParatrainClassificationModel m = estimator(epochs).setNumRanks(3).setCheckpointDir(dir.toString())
                .fit(SparkSessions.frame(data, 3));
            killer.join(1000);
            assertTrue(killedAt[0] > 0, "the task was never killed");
            RankTask.Outcome o = m.outcome();
            assertEquals(1, o.stageAttempt(), "the stage was not retried once");
            assertTrue(o.resumedAtEpoch() >= 1 && o.resumedAtEpoch() < epochs, "resumed at " + o.resumedAtEpoch());
            assertArrayEquals(local.params(), m.trainingResult().params(), "the resumed run's parameters differ");
            assertEquals(Double.doubleToLongBits(local.finalLoss()), Double.doubleToLongBits(m.trainingResult().finalLoss()));
            // The directory now holds this fit's checkpoints: a second fit there is refused, not resumed from them.
            IllegalArgumentException used = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> estimator(epochs).setCheckpointDir(dir.toString()).fit(SparkSessions.frame(data, 3)));
            assertTrue(used.getMessage().startsWith("checkpointDir " + dir + " already holds checkpoints"),
                used.getMessage());
            System.out.printf("killed task: retried stage submitted %.2f s after the kill, resumed at epoch %d of %d%n",
                (retriedAt[0] - killedAt[0]) / 1e9, o.resumedAtEpoch(), epochs);
        } finally {
            sc.removeSparkListener(watch);
        }
    }
}
