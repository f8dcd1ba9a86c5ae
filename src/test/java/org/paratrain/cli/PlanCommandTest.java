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
        // 500 x 1 takes a microsecond or so an epoch: the table says us, not 0.000x ms.
        assertTrue(text.contains("master-worker/fixed:1 (us)"), text);
        Matcher m = Pattern.compile("1 rank ([0-9.]+) us per epoch \\(predicted ([0-9.]+)").matcher(text);
        assertTrue(m.find(), text);
        assertTrue(Double.parseDouble(m.group(1)) > 0 && Double.parseDouble(m.group(2)) > 0, m.group());
        assertTrue(Files.readString(dir.resolve("plan/plan.md")).contains("Checked now on this machine"));
    }
}
