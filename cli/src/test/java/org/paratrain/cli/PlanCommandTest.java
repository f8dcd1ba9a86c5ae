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
    void aLinkPricesMessagesAtItsRateAndLatency() throws Exception {
        org.paratrain.collective.Allreduce.Machine local = new org.paratrain.collective.Allreduce.Machine(1e-7, 1e-10,
            3e-11);
        org.paratrain.collective.Allreduce.Machine gbit = PlanCommand.onLink("1gbit", local);
        assertEquals(50e-6, gbit.alpha(), 1e-18);
        assertEquals(8e-9, gbit.beta(), 1e-21, "8 bits a byte at 10^9 bits a second");
        assertEquals(3e-11, gbit.gamma(), 0.0, "the additions stay the machine's");
        org.paratrain.collective.Allreduce.Machine fast = PlanCommand.onLink("25gbit,1.5us", local);
        assertEquals(1.5e-6, fast.alpha(), 1e-18);
        assertEquals(8 / 25e9, fast.beta(), 1e-22);
        // The paper's run: no node count pays across a 100 Mbit/s link; a 60,000 x 784 one does across 25 Gbit/s.
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), "plan", "--samples", "500",
            "--features", "1", "--backend", "mpi", "--link", "100mbit", "--out", dir.resolve("slow").toString());
        assertEquals(0, status, err.toString());
        assertTrue(out.toString().contains("link 100mbit: alpha 50.0 us, beta 80.000 ns a byte"), out.toString());
        assertTrue(out.toString().contains("No node count beats 1"), out.toString());
        assertTrue(Files.readString(dir.resolve("slow/plan.md")).startsWith("link 100mbit: "), "plan.md says so too");
        out = new StringWriter();
        status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), "plan", "--samples", "60000",
            "--features", "784", "--backend", "mpi", "--link", "25gbit,2us", "--nodes-max", "8", "--out",
            dir.resolve("fast").toString());
        assertEquals(0, status, err.toString());
        assertTrue(out.toString().matches("(?s).*Best: [248] nodes.*"), out.toString());
        for (String[] bad : new String[][] {{"--link", "1gbps", "--backend", "mpi"}, {"--link", "1gbit"}}) {
            err = new StringWriter();
            java.util.List<String> args = new java.util.ArrayList<>(List.of("plan", "--samples", "500", "--features",
                "1", "--out", dir.resolve("bad").toString()));
            args.addAll(List.of(bad));
            status = Main.execute(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true),
                args.toArray(String[]::new));
            assertEquals(2, status, err.toString());
            assertEquals(1, err.toString().strip().lines().count(), err.toString());
        }
        assertTrue(!Files.exists(dir.resolve("bad")));
    }

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
