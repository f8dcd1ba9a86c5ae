package org.paratrain.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.train.Training;
import org.paratrain.train.TrainingResult;
import org.paratrain.train.checkpoint.CheckpointStore;

/**
 * Executors as separate JVMs ({@code local-cluster[3,1,1024]}: a master and three workers in this
 * JVM, each worker starting its executor as a process of its own, as on a cluster): the fit is
 * the bits of one local rank, and when an executor process is killed (SIGKILL) mid-run, Spark
 * retries the stage on the executor that replaces it and the run resumes to the same bits.
 *
 * <p>A worker builds its executor's command from a Spark home; without a Spark distribution,
 * Spark's own test mode ({@code spark.testing}, {@code spark.test.home}) accepts an empty one,
 * and the executors get this JVM's class path through {@code spark.executor.extraClassPath}.
 * Surefire runs each test class in a JVM of its own, so this one's Spark is the only one.
 */
class SparkClusterTest {
    @TempDir
    static Path home;
    private static SparkSession spark;

    @BeforeAll
    static void cluster() throws Exception {
        Files.createDirectories(home.resolve("jars"));
        Files.createDirectories(home.resolve("assembly/target/scala-2.13/jars"));
        Files.createDirectories(home.resolve("launcher/target/scala-2.13"));
        System.setProperty("spark.testing", "true");
        System.setProperty("spark.test.home", home.toString());
        spark = SparkSession.builder().master("local-cluster[3,1,1024]").appName("paratrain-spark-cluster-test")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.executor.extraClassPath", System.getProperty("java.class.path"))
            .config("spark.worker.dir", home.resolve("work").toString())
            // The executors' temporary files (lz4-java's library) where the build keeps the tests', not in /tmp.
            .config("spark.executor.extraJavaOptions", "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"))
            .config("spark.sql.shuffle.partitions", "3")
            .getOrCreate();
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    /** This JVM's executor processes (their command lines read from /proc: too long for ProcessHandle.Info). */
    private static List<ProcessHandle> executors() {
        return ProcessHandle.current().descendants().filter(p -> {
            try {
                return Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"))
                    .contains("CoarseGrainedExecutorBackend");
            } catch (java.io.IOException e) {
                return false;     // ended meanwhile
            }
        }).toList();
    }

    @Test
    void separateExecutorProcessesGiveTheBitsOfOneLocalRank() {
        org.paratrain.data.Dataset data = SparkFitTest.data();
        record Case(String model, int tasks) { }
        for (Case c : List.of(new Case("logistic", 1), new Case("logistic", 2), new Case("logistic", 3),
                new Case("mlp", 3))) {
            int batch = c.model().equals("mlp") ? 16 : 0;
            TrainingResult local = Training.local(data, SparkFitTest.reference(c.model(), batch));
            ParatrainClassificationModel m = SparkFitTest.estimator(c.model(), batch, c.tasks())
                .fit(SparkSessions.frame(spark, data, 3));
            String what = c.model() + " at " + c.tasks() + " tasks";
            assertArrayEquals(local.params(), m.trainingResult().params(), what + ": parameters differ");
            assertEquals(Double.doubleToLongBits(local.finalLoss()), Double.doubleToLongBits(m.trainingResult().finalLoss()),
                what + ": final loss differs");
            assertEquals(c.tasks(), m.outcome().nodes(), what + ": ranks");
        }
        assertTrue(executors().size() >= 3, "the executors are not processes of their own: " + executors());
    }

    @Test
    void aKilledExecutorProcessIsReplacedAndTheRunResumesToTheSameBits(@TempDir Path dir) throws Exception {
        org.paratrain.data.Dataset data = SparkRetryTest.data(20_000);
        TrainingResult local = Training.local(data, SparkRetryTest.reference(12));
        long[] killedAt = {0};
        Thread killer = new Thread(() -> {
            try {
                while (!Files.exists(dir) || CheckpointStore.files(dir).isEmpty()) {
                    Thread.sleep(5);
                }
                ProcessHandle victim = executors().get(0);
                killedAt[0] = System.nanoTime();
                new ProcessBuilder("kill", "-KILL", Long.toString(victim.pid())).inheritIO().start().waitFor();
            } catch (Exception e) {
                Thread.currentThread().interrupt();
            }
        });
        killer.setDaemon(true);
        killer.start();
        long t0 = System.nanoTime();
        ParatrainClassificationModel m = SparkRetryTest.estimator(12).setNumRanks(3)
            .setCheckpointDir(dir.toString()).fit(SparkSessions.frame(spark, data, 3));
        long end = System.nanoTime();
        killer.join(1000);
        assertTrue(killedAt[0] > 0, "no executor was killed");     // 3 ranks on 3 executors: each one holds a rank
        RankTask.Outcome o = m.outcome();
        assertTrue(o.stageAttempt() >= 1, "the stage was not retried");
        assertTrue(o.resumedAtEpoch() >= 1, "it did not resume from a checkpoint");
        assertArrayEquals(local.params(), m.trainingResult().params(), "the resumed run's parameters differ");
        assertEquals(Double.doubleToLongBits(local.finalLoss()), Double.doubleToLongBits(m.trainingResult().finalLoss()));
        System.out.printf("killed executor: fit ended %.2f s after the kill (fit %.2f s), attempt %d resumed at epoch %d%n",
            (end - killedAt[0]) / 1e9, (end - t0) / 1e9, o.stageAttempt(), o.resumedAtEpoch());
    }
}
