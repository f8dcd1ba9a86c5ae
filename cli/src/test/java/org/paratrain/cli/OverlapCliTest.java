package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --bucket-size} from the command line: the model of the run without buckets, bit for bit,
 * recorded in result.json; and the faults of a rank during a bucketed exchange end the run as
 * without buckets, the failed or hung rank named, nothing written to {@code --out}.
 */
class OverlapCliTest {
    @TempDir
    static Path dir;
    static Path csv;

    @BeforeAll
    static void data() throws IOException {
        StringBuilder sb = new StringBuilder("a,b,c,d,y\n");
        SplittableRandom r = new SplittableRandom(9);
        for (int i = 0; i < 600; i++) {
            int y = r.nextInt(3);
            sb.append(String.format(java.util.Locale.ROOT, "%.4f,%.4f,%.4f,%.4f,%d%n", r.nextGaussian() + y,
                r.nextGaussian(), r.nextGaussian() - y, r.nextGaussian(), y));
        }
        csv = dir.resolve("d.csv");
        Files.writeString(csv, sb.toString());
    }

    private static String[] train(String out, String... extra) {
        String[] base = {"train", "--data", csv.toString(), "--model", "mlp", "--layers", "16,8", "--batch-size", "60",
            "--allreduce", "ring", "--quiet", "--out", dir.resolve(out).toString()};
        String[] all = java.util.Arrays.copyOf(base, base.length + extra.length);
        System.arraycopy(extra, 0, all, base.length, extra.length);
        return all;
    }

    private static JsonNode read(String out, String file) throws IOException {
        return new ObjectMapper().readTree(dir.resolve(out).resolve(file).toFile());
    }

    @Test
    void bucketsTrainTheModelOfTheWholeGradient() throws IOException {
        CliTest.Run whole = CliTest.run(train("whole", "--nodes", "3", "--epochs", "6", "--bucket-size", "0"));
        assertEquals(0, whole.status(), whole.err());
        for (String bucket : new String[] {"1", "1k", "auto"}) {
            CliTest.Run r = CliTest.run(train("b" + bucket, "--nodes", "3", "--epochs", "6", "--bucket-size", bucket));
            assertEquals(0, r.status(), r.err());
            assertEquals(read("whole", "model.json").get("params"), read("b" + bucket, "model.json").get("params"),
                "--bucket-size " + bucket);
            String recorded = read("b" + bucket, "result.json").at("/config/training/bucket_size").asText();
            assertEquals(bucket.equals("1k") ? "1024" : bucket, recorded);
        }
    }

    /** A rank that throws in a step of the bucketed exchange: every rank ends within seconds, the rank named. */
    @Test
    void aFailedRankEndsTheBucketedRunNamed() {
        long start = System.nanoTime();
        CliTest.Run r = CliTest.run(train("failed", "--nodes", "3", "--bucket-size", "1", "--epochs", "50",
            "--inject-failure", "1:25"));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("rank 1 failed"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertTrue(seconds < 30, "took " + seconds + " s");
        assertFalse(Files.exists(dir.resolve("failed")), "--out is not made for a run that failed");
    }

    /** A rank that stops answering while the others' exchange threads wait for its bucket: named after the timeout. */
    @Test
    void aHungRankIsNamedWhileBucketsWait() {
        long start = System.nanoTime();
        CliTest.Run r = CliTest.run(train("hung", "--nodes", "3", "--bucket-size", "1", "--epochs", "50",
            "--comm-timeout", "1", "--inject-failure", "1:25:hang"));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("rank 1 stopped answering"), r.err());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r.err());
        assertTrue(seconds < 30, "took " + seconds + " s");
        assertFalse(Files.exists(dir.resolve("hung")), "--out is not made for a run that failed");
    }
}
