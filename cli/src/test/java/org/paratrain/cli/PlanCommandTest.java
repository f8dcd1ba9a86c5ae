package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code plan} as a user runs it: node counts this backend can use, times in a unit that fits, a checked prediction. */
class PlanCommandTest {
    @TempDir
    Path dir;

    @Test
    void theDefaultPlanStopsAtTheCoresAndChecksItselfAgainstARun() throws Exception {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), "plan", "--samples", "500",
            "--features", "1", "--out", dir.resolve("plan").toString());
        assertEquals(0, status, err.toString());
        int cores = Math.max(2, Runtime.getRuntime().availableProcessors());
        List<String> csv = Files.readAllLines(dir.resolve("plan/plan.csv"));
        assertEquals(Integer.numberOfTrailingZeros(Integer.highestOneBit(cores)) + 1, csv.size() - 1, csv.toString());
        assertTrue(csv.get(csv.size() - 1).startsWith(Integer.highestOneBit(cores) + ","), csv.toString());
        String text = out.toString();
        assertTrue(text.contains("Node counts up to " + Integer.highestOneBit(cores)), text);
        // 500 x 1 takes about a microsecond an epoch: the table's unit puts the median time, read
        // from plan.csv (seconds), between 1 and 1000, not at 0.000x ms.
        double[] all = csv.subList(1, csv.size()).stream().flatMapToDouble(l -> {
            String[] f = l.split(",");
            return java.util.Arrays.stream(f, 1, f.length - 2).mapToDouble(Double::parseDouble);
        }).sorted().toArray();
        double median = all[all.length / 2];
        String unit = median < 1e-6 ? "ns" : median < 1e-3 ? "us" : median < 1 ? "ms" : "s";
        assertTrue(text.contains("master-worker/fixed:1 (" + unit + ")"), unit + ": " + text);
        Matcher m = Pattern.compile("1 rank ([0-9.]+) " + unit + " per epoch \\(predicted ([0-9.]+)").matcher(text);
        assertTrue(m.find(), text);
        assertTrue(Double.parseDouble(m.group(1)) > 0 && Double.parseDouble(m.group(2)) > 0, m.group());
        assertTrue(Files.readString(dir.resolve("plan/plan.md")).contains("Checked now on this machine"));
    }
}
