package org.paratrain.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.paratrain.cli.Main;

/**
 * {@code bench collectives --fixed-only}: every way of summing (agreed, guessed, by halves, in one
 * ring) is timed and gives the same bits as the others (the benchmark checks it on every rank and
 * fails otherwise); the ways that need a ring or halves appear only with an allreduce that has them.
 */
class BenchCollectivesFixedTest {
    private record Run(int status, String out, String err) { }

    private static Run run(String... args) {
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        int status = Main.execute(new java.io.PrintWriter(out, true), new java.io.PrintWriter(err, true), args);
        return new Run(status, out.toString(), err.toString());
    }

    @Test
    void everyWayIsTimedAndGivesTheSameBits() {
        for (int ranks : new int[] {2, 3}) {
            Run r = run("bench", "collectives", "--fixed-only", "--fixed-values", "70001", "--fixed-ranks",
                String.valueOf(ranks), "--rounds", "1");
            assertEquals(0, r.status(), r.err());
            for (String row : new String[] {"| double |", "| fixed:1 |", "| fixed:2 |", "| fixed:1 guessed |",
                "| fixed:1 guessed, by halves |", "| fixed:1 guessed, in one ring |", "| fixed:2 guessed, in one ring |"}) {
                assertTrue(r.out().contains(row), row + " in\n" + r.out());
            }
            assertTrue(r.out().contains("Every way of one format gave the same bits"), r.out());
        }
        Run tree = run("bench", "collectives", "--fixed-only", "--fixed-values", "5000", "--fixed-allreduce", "tree",
            "--rounds", "1");
        assertEquals(0, tree.status(), tree.err());
        assertTrue(tree.out().contains("| fixed:2 guessed |"), tree.out());
        assertFalse(tree.out().contains("| fixed:1 guessed, by halves"), tree.out());
        assertFalse(tree.out().contains("| fixed:1 guessed, in one ring"), tree.out());
    }
}
