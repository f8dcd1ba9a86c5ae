package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The library module's class path is what a program that depends on {@code org.paratrain:paratrain}
 * gets: the command line's libraries must not be on it, and what training needs must be.
 */
class LibraryDependenciesTest {
    @Test
    void theCommandLinesLibrariesAreNotOnTheLibrarysClassPath() {
        for (String cls : List.of("picocli.CommandLine", "org.knowm.xchart.XYChart", "me.tongfei.progressbar.ProgressBar",
                "org.jline.terminal.Terminal", "org.paratrain.cli.Main")) {
            assertThrows(ClassNotFoundException.class, () -> Class.forName(cls, false, getClass().getClassLoader()), cls);
        }
    }

    @Test
    void whatTrainingNeedsIs() {
        for (String cls : List.of("com.fasterxml.jackson.databind.ObjectMapper", "org.apache.commons.csv.CSVFormat",
                "com.google.protobuf.Message", "org.paratrain.Trainer", "org.paratrain.export.OnnxExport")) {
            assertDoesNotThrow(() -> Class.forName(cls, false, getClass().getClassLoader()), cls);
        }
    }
}
