package org.paratrain.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        BadInput.check(c, dir);
    }
}
