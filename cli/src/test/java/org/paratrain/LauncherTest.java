package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.paratrain.cli.Main;

/**
 * The launcher script {@code ./paratrain} itself, run on a copy in a temporary directory: its
 * start-up cache (made once per build, not where {@code target/} is read-only, not by the ranks of
 * an MPI job, and neither made nor used beside the options the JVM refuses it with), its way
 * through symbolic links to itself, and its build error.
 *
 * <p>Tests run before {@code package}: there is no {@code target/paratrain.jar} yet, and the
 * launcher would start a Maven build inside this one. So this class packs {@code target/classes}
 * into a jar of its own, whose manifest names the dependency jars of this JVM's class path (a
 * thin jar: the real one is shaded), and dates it after the copy's {@code pom.xml} and
 * {@code src/main}, so that the launcher runs it as it would a fresh build. A fake {@code mvn}
 * first on the PATH leaves a mark and fails, so a build the launcher should not start shows.
 */
class LauncherTest {
    private static final String PREPARING = "paratrain: preparing a start-up cache (once per build)...";
    private static final long TIMEOUT_SECONDS = 60;
    private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);

    @TempDir
    static Path built;
    static Path jar;

    @TempDir
    Path dir;
    Path home;

    /** What one run of the launcher did. */
    record Run(int status, String out, List<String> err) { }

    @BeforeAll
    static void packClasses() throws Exception {
        Path classes = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> dependencies = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry).toAbsolutePath();
            // This module's classes go in the jar; the library's are a jar, or under mvn test its classes
            // directory (a Class-Path entry may name one, ending in a slash); test classes stay out.
            if (Files.isRegularFile(p) || (Files.isDirectory(p) && !p.equals(classes)
                    && !p.getFileName().toString().equals("test-classes"))) {
                dependencies.add(p.toUri().toString());
            }
        }
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.put(Attributes.Name.MAIN_CLASS, Main.class.getName());
        main.putValue("Enable-Native-Access", "ALL-UNNAMED");
        main.put(Attributes.Name.CLASS_PATH, String.join(" ", dependencies));
        jar = built.resolve("paratrain.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
                String name = classes.relativize(f).toString().replace(File.separatorChar, '/');
                if (!name.equals("META-INF/MANIFEST.MF")) {
                    out.putNextEntry(new JarEntry(name));
                    Files.copy(f, out);
                    out.closeEntry();
                }
            }
        }
    }

    /** A checkout as the launcher sees it after a build: script, sources, and a jar newer than them. */
    @BeforeEach
    void layOut() throws IOException {
        home = dir.resolve("home");
        Files.createDirectories(home.resolve("core/src/main"));
        Files.createDirectories(home.resolve("cli/target"));
        Files.copy(Path.of("paratrain"), home.resolve("paratrain"));
        Files.setPosixFilePermissions(home.resolve("paratrain"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(home.resolve("pom.xml"), "");
        Files.copy(jar, home.resolve("cli/target/paratrain.jar"));
        date(home.resolve("core/src/main"), 120);
        date(home.resolve("pom.xml"), 120);
        date(home.resolve("cli/target/paratrain.jar"), 60);
        Path mvn = Files.createDirectories(dir.resolve("bin")).resolve("mvn");
        String mark = dir.resolve("mvn-called").toString();
        assertFalse(mark.contains("'"), mark);
        // Maven's colours in its error, which the launcher strips before it shows the log.
        Files.writeString(mvn, "#!/bin/sh\n{ pwd; echo \"$@\"; } > '" + mark + "'\n"
            + "printf '\\033[1;31m[ERROR]\\033[m compilation failed\\n'\nexit 1\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

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

    /** Runs {@code launcher args} with this JVM's JDK as JAVA_HOME and the fake {@code mvn} first on the PATH. */
    private Run run(Path launcher, Map<String, String> env, String... args) throws Exception {
        return run(List.of(launcher.toString()), env, args);
    }

    /** Runs {@code command args} (the launcher, or a command that runs it) as {@link #run(Path, Map, String...)}. */
    private Run run(List<String> command, Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(command);
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
            .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.DISCARD.file());
        Map<String, String> environment = pb.environment();
        // Nothing of this shell's paratrain or JVM settings: each could add a line or refuse the cache.
        environment.keySet().removeIf(name -> name.startsWith("PARATRAIN_"));
        for (String inherited : List.of("JDK_JAVA_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
            "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK")) {
            environment.remove(inherited);
        }
        environment.put("JAVA_HOME", System.getProperty("java.home"));
        environment.put("PATH", dir.resolve("bin") + File.pathSeparator + environment.getOrDefault("PATH", "/usr/bin"));
        environment.putAll(env);
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
            fail(cmd + " still running after " + TIMEOUT_SECONDS + " s; stderr:\n" + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readAllLines(err));
    }

    private static void oneLine(Run r) {
        assertEquals(1, r.err().size(), r.toString());
        assertTrue(r.err().getFirst().startsWith("paratrain") && !r.err().getFirst().equals(PREPARING), r.toString());
    }

    /** The one cache in {@code target/}, with no failure mark or half-made file beside it. */
    private static Path onlyCache(Path home) throws IOException {
        List<String> made = targetFiles(home).stream().filter(n -> n.startsWith("paratrain-cli-")).toList();
        assertEquals(1, made.size(), made.toString());
        assertTrue(made.getFirst().endsWith(".aot"), made.toString());
        return home.resolve("cli/target").resolve(made.getFirst());
    }

    private static void noCache(Path home) throws IOException {
        assertEquals(List.of("paratrain.jar"), targetFiles(home));
    }

    private static List<String> targetFiles(Path home) throws IOException {
        try (Stream<Path> files = Files.list(home.resolve("cli/target"))) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    private void noBuild() {
        assertFalse(Files.exists(dir.resolve("mvn-called")), "the launcher started a build");
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

    private static void date(Path file, long minutesAgo) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(NOW.minus(minutesAgo, ChronoUnit.MINUTES)));
    }

    private static FileTime date(Path file) throws IOException {
        return Files.getLastModifiedTime(file);
    }
}
