package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.paratrain.cli.BadInput.resolve;
import static org.paratrain.cli.BadInput.snapshot;
import static org.paratrain.cli.BadInput.write;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.cli.BadInput.Case;

/**
 * Bad files: the data in each format, model files and the safetensors files to start from, each
 * held to {@link BadInput}'s error contract; apart from {@link BadOptionInputTest}'s bad options so
 * that each test is one topic.
 */
class BadFileInputTest {
    static Stream<Case> cases() {
        List<Case> c = new ArrayList<>();
        BadInputSafetensors.initFiles(c);
        BadInputFiles.paperFiles(c);
        BadInputFiles.tableFiles(c);
        BadInputFiles.idxFiles(c);
        BadInputArrays.npyFiles(c);
        BadInputArrays.npzFiles(c);
        BadInputFiles.modelFiles(c);
        return c.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isOneLineNamingTheCauseAndWritesNothing(Case c, @TempDir Path dir) throws IOException {
        write(dir, c);
        Map<String, String> before = snapshot(dir);
        String[] args = c.args().stream().map(a -> a.startsWith("@") ? resolve(dir, a.substring(1)) : a)
            .toArray(String[]::new);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        String e = err.toString();
        assertEquals(c.status(), status, e);
        assertEquals(1, e.lines().count(), "one line: " + e);
        assertTrue(e.endsWith("\n") && e.startsWith("paratrain"), e);
        assertTrue(e.length() < 1500, "no value echoed whole: " + e.length() + " characters");
        for (String m : c.mentions()) {
            assertTrue(e.contains(m), "names " + m + ": " + e);
        }
        for (String noise : List.of("Exception", "at org.", "at java.", "REDACTED", "internal error")) {
            assertFalse(e.contains(noise), noise + ": " + e);
        }
        assertEquals(before, snapshot(dir), "nothing written");
    }
}
