package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Descriptions flow as paragraphs in --help instead of breaking at every line of source. */
class HelpTextTest {
    @Test
    void theSummaryStaysALineAndTheRestFlows() {
        assertArrayEquals(new String[] {"Time it.", "Runs a b and c d."},
            HelpText.paragraphs(new String[] {"Time it.", "Runs a b", "and c d."}));
        assertArrayEquals(new String[] {"Write X.in as make_regression makes them (same numbers)."},
            HelpText.paragraphs(new String[] {"Write X.in as make_regression makes them", "(same numbers)."}));
        assertArrayEquals(new String[] {"One line."}, HelpText.paragraphs(new String[] {"One line."}));
        assertArrayEquals(new String[0], HelpText.paragraphs(new String[0]));
    }

    /** Before, a 100-character line of source wrapped at 80 columns and left "generator; 2 ranks with each" alone. */
    @Test
    void benchBalanceHelpHasNoOrphanedLines() {
        CliTest.Run r = CliTest.run("bench", "balance", "--help");
        assertEquals(0, r.status(), r.err());
        String out = r.out().replace("\r", "");
        assertTrue(out.contains("generator; 2 ranks with each exchange of --allreduce"), out);
        assertTrue(out.contains("--modes=MODE[,MODE...]"), out);
    }
}
