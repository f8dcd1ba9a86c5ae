package org.paratrain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.Main;

/**
 * What {@link LauncherCacheTest} and {@link LauncherStartTest} share: the launcher script
 * {@code ./paratrain} copied into a temporary directory beside a jar of this build, and the runs
 * and checks of it; one fixture, so that each test is one topic and neither sets up the other.
 *
 * <p>Tests run before {@code package}: there is no {@code target/paratrain.jar} yet, and the
 * launcher would start a Maven build inside this one. So this class packs {@code target/classes}
 * into a jar of its own, whose manifest names the dependency jars of this JVM's class path (a
 * thin jar: the real one is shaded), and dates it after the copy's {@code pom.xml} and
 * {@code src/main}, so that the launcher runs it as it would a fresh build. A fake {@code mvn}
 * first on the PATH leaves a mark and fails, so a build the launcher should not start shows.
 */
abstract class LauncherFixture {
    static final String PREPARING = "paratrain: preparing a start-up cache (once per build)...";
    static final long TIMEOUT_SECONDS = 60;
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

    /** Runs {@code launcher args} with this JVM's JDK as JAVA_HOME and the fake {@code mvn} first on the PATH. */
    Run run(Path launcher, Map<String, String> env, String... args) throws Exception {
        return run(List.of(launcher.toString()), env, args);
    }

    /** Runs {@code command args} (the launcher, or a command that runs it) as {@link #run(Path, Map, String...)}. */
    Run run(List<String> command, Map<String, String> env, String... args) throws Exception {
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

    static void oneLine(Run r) {
        assertEquals(1, r.err().size(), r.toString());
        assertTrue(r.err().getFirst().startsWith("paratrain") && !r.err().getFirst().equals(PREPARING), r.toString());
    }

    /** The one cache in {@code target/}, with no failure mark or half-made file beside it. */
    static Path onlyCache(Path home) throws IOException {
        List<String> made = targetFiles(home).stream().filter(n -> n.startsWith("paratrain-cli-")).toList();
        assertEquals(1, made.size(), made.toString());
        assertTrue(made.getFirst().endsWith(".aot"), made.toString());
        return home.resolve("cli/target").resolve(made.getFirst());
    }

    static void noCache(Path home) throws IOException {
        assertEquals(List.of("paratrain.jar"), targetFiles(home));
    }

    private static List<String> targetFiles(Path home) throws IOException {
        try (Stream<Path> files = Files.list(home.resolve("cli/target"))) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    void noBuild() {
        assertFalse(Files.exists(dir.resolve("mvn-called")), "the launcher started a build");
    }

    static void date(Path file, long minutesAgo) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(NOW.minus(minutesAgo, ChronoUnit.MINUTES)));
    }

    static FileTime date(Path file) throws IOException {
        return Files.getLastModifiedTime(file);
    }
}
