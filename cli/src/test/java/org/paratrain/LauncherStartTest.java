package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * What the launcher starts: the JVM options the other tests' stand-in copies, the jar beside the
 * script through symbolic links to itself, and a build when the sources are newer (its error, and
 * one build for launchers started at once); apart from {@link LauncherCacheTest}'s start-up cache.
 */
class LauncherStartTest extends LauncherFixture {
    /** The stand-in other tests run for {@code ./paratrain} gives its JVM the script's options. */
    @Test
    void theStandInOfOtherTestsHasTheScriptsJvmOptions() throws Exception {
        List<String> script = Files.readAllLines(Path.of("paratrain"));
        String jit = script.stream().filter(l -> l.startsWith("jit=")).findFirst().orElseThrow().substring(4);
        String jvm = script.stream().filter(l -> l.startsWith("jvm=(")).findFirst().orElseThrow();
        List<String> options = new ArrayList<>();
        for (String word : jvm.substring(5, jvm.lastIndexOf(')')).split("\\s+")) {
            if (word.equals("$jit")) {
                options.add(jit);
            } else if (!word.equals("$pages")) {   // huge pages: only where the kernel hands them out
                options.add(word);
            }
        }
        assertEquals(options, LauncherImitation.JVM_OPTIONS);
    }

    @Test
    void aLinkToTheLauncherRunsTheJarBesideTheScript() throws Exception {
        Path absolute = Files.createDirectories(dir.resolve("on-path")).resolve("paratrain");
        Files.createSymbolicLink(absolute, home.resolve("paratrain"));
        Path relative = Files.createDirectories(dir.resolve("elsewhere")).resolve("pt");
        Files.createSymbolicLink(relative, Path.of("../on-path/paratrain"));   // a link to the link

        Run first = run(absolute, Map.of(), "--version");
        assertEquals(0, first.status(), first.toString());
        assertEquals(List.of(PREPARING), first.err());
        onlyCache(home);
        Run second = run(relative, Map.of(), "train", "--epochs", "x");
        assertEquals(2, second.status(), second.toString());
        oneLine(second);
        noBuild();
    }

    @Test
    void aFailedBuildShowsMavensOutputAndOneErrorLine() throws Exception {
        date(home.resolve("cli/target/paratrain.jar"), 180);
        Run r = run(home.resolve("paratrain"), Map.of(), "--version");
        assertEquals(1, r.status(), r.toString());
        assertEquals(List.of("paratrain: building cli/target/paratrain.jar (first run, or the sources changed)...",
            "[ERROR] compilation failed", "paratrain: error: the build failed (output above)"), r.err());
        assertEquals("", r.out());
        List<String> call = Files.readAllLines(dir.resolve("mvn-called"));
        assertEquals(home.toAbsolutePath().toString(), call.get(0), "Maven runs in the checkout");
        // The launcher's quick build: no tests, no Javadoc, no sources jar (nor the step that adds to it).
        for (String flag : List.of("-DskipTests", "-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true", "package")) {
            assertTrue(List.of(call.get(1).split(" ")).contains(flag), flag + " in: " + call.get(1));
        }
        noCache(home);
    }

    /**
     * The ranks of an mpirun on one machine start the launcher at once: with the sources newer than
     * the jar, one builds and the others wait for it and find the jar new (two Maven builds in one
     * tree failed each other). The fake Maven here takes a second and then "builds" the jar.
     */
    @Test
    void launchersStartedAtOnceBuildOnce() throws Exception {
        Assumptions.assumeTrue(new ProcessBuilder("sh", "-c", "command -v flock").start().waitFor() == 0, "no flock");
        date(home.resolve("cli/target/paratrain.jar"), 180);
        Path calls = dir.resolve("mvn-calls");
        Files.writeString(dir.resolve("bin/mvn"), "#!/bin/sh\necho call >> '" + calls + "'\nsleep 1\n"
            + "touch '" + home.resolve("cli/target/paratrain.jar") + "'\nexit 0\n");
        // A thread each, so that the three start together (a common pool of one thread would run them in turn).
        java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(3);
        int building = 0;
        try {
            List<java.util.concurrent.Future<Run>> runs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                runs.add(threads.submit(() -> run(home.resolve("paratrain"), Map.of(), "--version")));
            }
            for (var f : runs) {
                Run r = f.get(2 * TIMEOUT_SECONDS, TimeUnit.SECONDS);
                assertEquals(0, r.status(), r.toString());
                assertTrue(r.out().startsWith("paratrain "), r.toString());
                building += (int) r.err().stream().filter(l -> l.startsWith("paratrain: building")).count();
            }
        } finally {
            threads.shutdownNow();
        }
        assertEquals(List.of("call"), Files.readAllLines(calls), "Maven ran once");
        assertEquals(1, building, "one launcher said it builds");
    }

    /**
     * {@code ./paratrain java PROGRAM.java}: the README's way to run a program of one's own, by
     * the launcher's JDK with the jar on the class path; the program's arguments reach it, and
     * without a program the error is one line. The reference is the same library call in this JVM.
     */
    @Test
    void javaRunsAProgramWithTheJarOnItsClassPath() throws Exception {
        Path program = dir.resolve("Prog.java");
        Files.writeString(program, """
            public class Prog {
                public static void main(String[] args) {
                    System.out.println(Runtime.version().feature() + " "
                        + org.paratrain.data.MakeRegression.of(500, 1).generate(42).coef()[0] + " " + String.join(",", args));
                }
            }
            """);
        Run r = run(home.resolve("paratrain"), Map.of(), "java", program.toString(), "a", "b c");
        assertEquals(0, r.status(), r.toString());
        assertEquals(Runtime.version().feature() + " " + org.paratrain.data.MakeRegression.of(500, 1).generate(42).coef()[0]
            + " a,b c\n", r.out(), r.toString());
        noBuild();
        // A class path of the program's own keeps the jar: Prog uses a class from it and paratrain's.
        Path lib = Files.createDirectories(dir.resolve("lib"));
        Path helper = dir.resolve("Helper.java");
        Files.writeString(helper, "public class Helper { public static String tag() { return \"helped\"; } }\n");
        assertEquals(0, javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", lib.toString(),
            helper.toString()));
        Path uses = dir.resolve("Uses.java");
        Files.writeString(uses, """
            public class Uses {
                public static void main(String[] args) {
                    System.out.println(Helper.tag() + " " + org.paratrain.data.MakeRegression.of(500, 1).generate(42).coef()[0]);
                }
            }
            """);
        Run own = run(home.resolve("paratrain"), Map.of(), "java", "-cp", lib.toString(), uses.toString());
        assertEquals(0, own.status(), own.toString());
        assertEquals("helped " + org.paratrain.data.MakeRegression.of(500, 1).generate(42).coef()[0] + "\n", own.out());
        Run none = run(home.resolve("paratrain"), Map.of(), "java");
        assertEquals(2, none.status(), none.toString());
        assertEquals(List.of("paratrain: error: java needs a program to run, e.g. ./paratrain java examples/Example.java"),
            none.err());
    }
}
