package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.cli.Main;

/**
 * The launcher's start-up cache: made once per build, not where {@code target/} is read-only, not
 * by the ranks of an MPI job, and neither made nor used beside the options the JVM refuses it
 * with; apart from {@link LauncherStartTest}, which checks what the launcher starts.
 */
class LauncherCacheTest extends LauncherFixture {
    @Test
    void theFirstRunMakesTheCacheOnceAndLaterRunsMapIt() throws Exception {
        Run first = run(home.resolve("paratrain"), Map.of(), "--version");
        assertEquals(0, first.status(), first.toString());
        assertEquals(List.of(PREPARING), first.err());
        assertTrue(first.out().startsWith("paratrain "), first.out());
        Path cache = onlyCache(home);
        assertEquals(date(home.resolve("cli/target/paratrain.jar")), date(cache), "dated as the jar it was made from");
        Object made = Files.readAttributes(cache, BasicFileAttributes.class).fileKey();

        Path classLog = dir.resolve("class-load.log");
        Run second = run(home.resolve("paratrain"), Map.of("PARATRAIN_JAVA_OPTS", "-Xlog:class+load:file=" + classLog),
            "train", "--epochs", "x");
        assertEquals(2, second.status(), second.toString());
        oneLine(second);
        assertEquals(made, Files.readAttributes(onlyCache(home), BasicFileAttributes.class).fileKey(), "not made again");
        assertEquals(date(home.resolve("cli/target/paratrain.jar")), date(cache));
        assertTrue(Files.readString(classLog).contains(Main.class.getName() + " source: shared objects file"),
            "the second run loads paratrain's classes from the cache");
        noBuild();
    }

    @Test
    void aReadOnlyTargetIsRunWithoutACache() throws Exception {
        Path target = home.resolve("cli/target");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            // Root's writes ignore the mode; in a user namespace of its own (unshare -U) they do not,
            // and the launcher's [ -w ] says so as well.
            List<String> launcher = Files.isWritable(target)
                ? List.of("unshare", "-U", home.resolve("paratrain").toString())
                : List.of(home.resolve("paratrain").toString());
            Assumptions.assumeTrue(!Files.isWritable(target) || readOnlyInOwnNamespace(target),
                "target/ at mode 555 stays writable here and unshare -U cannot make it read-only");
            Run r = run(launcher, Map.of(), "--version");
            assertEquals(0, r.status(), r.toString());
            assertEquals(List.of(), r.err());
            noCache(home);
        } finally {
            Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"-XX:SharedArchiveFile=/nonexistent.jsa", "-Xshare:auto"})
    void sharingOptionsRunWithoutTheCache(String option) throws Exception {
        Map<String, String> env = Map.of("PARATRAIN_JAVA_OPTS", option);
        Run r = run(home.resolve("paratrain"), env, "train", "--epochs", "x");
        assertEquals(2, r.status(), r.toString());
        oneLine(r);
        noCache(home);
        // The JVM refuses to start with an AOT cache beside these options, whatever the cache holds.
        Path standIn = home.resolve("cli/target/paratrain-cli-" + jdkVersion() + ".aot");
        Files.writeString(standIn, "a stand-in");
        date(standIn, 60);
        r = run(home.resolve("paratrain"), env, "train", "--epochs", "x");
        assertEquals(2, r.status(), r.toString());
        oneLine(r);
        assertEquals("a stand-in", Files.readString(standIn));
        noBuild();
    }

    @ParameterizedTest
    @ValueSource(strings = {"OMPI_COMM_WORLD_SIZE=2", "PMI_SIZE=2", "PMIX_RANK=0"})
    void theRanksOfAnMpiJobMakeNoCache(String variable) throws Exception {
        String[] nameValue = variable.split("=");
        Run r = run(home.resolve("paratrain"), Map.of(nameValue[0], nameValue[1]), "--version");
        assertEquals(0, r.status(), r.toString());
        assertEquals(List.of(), r.err());
        noCache(home);
    }

    /** Whether {@code dir} is read-only to a shell in a user namespace of its own, as root's shell is not. */
    private static boolean readOnlyInOwnNamespace(Path dir) {
        try {
            Process p = new ProcessBuilder("unshare", "-U", "sh", "-c", "[ ! -w \"$0\" ]", dir.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;   // no unshare
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The launcher's name for this JDK in the cache's file name: its runtime version, made file-name safe. */
    private static String jdkVersion() throws IOException {
        for (String line : Files.readAllLines(Path.of(System.getProperty("java.home"), "release"))) {
            if (line.startsWith("JAVA_RUNTIME_VERSION=")) {
                return line.substring(line.indexOf('=') + 1).replace("\"", "").replaceAll("[^A-Za-z0-9.+_-]", "_");
            }
        }
        return "jdk";
    }
}
