package org.paratrain.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code paratrain train --backend spark --master spark://...} against a standalone Spark
 * cluster of processes: a master and a worker (Spark's own {@code Master} and {@code Worker}
 * classes, each a JVM of its own on 127.0.0.1), the worker starting two executor processes.
 * Once with the command line's own driver (paratrain's jars reach the executors through
 * {@code spark.jars}), once through {@code --spark-submit} with {@code SPARK_HOME} set (Spark's
 * {@code SparkSubmit} ships them through {@code --jars}); each run's model.json holds the bits of
 * the local backend at one node.
 *
 * <p>There is no Spark distribution on this machine: the Spark home this test makes has
 * {@code jars/} linked to the Spark module's own libraries (the build's class path, without
 * paratrain's jars and Commons CSV, which the cluster must get from the driver), and a
 * {@code bin/spark-submit} that runs {@code SparkSubmit} on them as Spark's script does.
 */
class SparkStandaloneTest {
    @TempDir
    static Path home;

    private static final List<Process> DAEMONS = new ArrayList<>();
    private static String masterUrl;
    private static Path csv;

    /** The JVM options this test JVM got for Spark (the module's surefire argLine): the daemons need the same. */
    private static List<String> sparkJvmOptions() {
        return ManagementFactory.getRuntimeMXBean().getInputArguments().stream().filter(a -> a.startsWith("--add-")
            || a.startsWith("--sun-misc") || a.startsWith("--enable-native") || a.startsWith("-Dio.netty")
            || a.equals("-XX:+IgnoreUnrecognizedVMOptions")).toList();
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElseThrow();
    }

    @BeforeAll
    static void cluster() throws Exception {
        csv = SparkTrainCommandTest.writeRows(home.resolve("rows.csv"));
        Path jars = Files.createDirectories(home.resolve("jars"));
        for (String e : Files.readString(Path.of("target", "classpath.txt")).trim().split(java.io.File.pathSeparator)) {
            Path p = Path.of(e).toAbsolutePath();
            String name = p.getFileName().toString();
            if (name.endsWith(".jar") && !name.startsWith("paratrain") && !name.startsWith("commons-csv")
                && !Files.exists(jars.resolve(name))) {
                Files.createSymbolicLink(jars.resolve(name), p);
            }
        }
        Files.createDirectories(home.resolve("bin"));
        Path submit = home.resolve("bin/spark-submit");
        Files.writeString(submit, "#!/bin/sh\nexec '" + java() + "' " + String.join(" ", sparkJvmOptions())
            + " -cp \"$SPARK_HOME/jars/*\" org.apache.spark.deploy.SparkSubmit \"$@\"\n");
        Files.setPosixFilePermissions(submit, PosixFilePermissions.fromString("rwxr-xr-x"));
        Matcher m = start("master", Pattern.compile("Starting Spark master at (spark://\\S+)"),
            "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", "0", "--webui-port", "0");
        masterUrl = m.group(1);
        start("worker", Pattern.compile("Successfully registered with master"), "org.apache.spark.deploy.worker.Worker",
            "--host", "127.0.0.1", "--cores", "2", "--memory", "3g", "--webui-port", "0", "--work-dir",
            home.resolve("work").toString(), masterUrl);
    }

    /** Environment of the daemons and of the command line: this Spark home, everything on 127.0.0.1. */
    private static void environment(Map<String, String> env) {
        env.remove("JDK_JAVA_OPTIONS");
        env.remove("JAVA_TOOL_OPTIONS");
        env.put("SPARK_HOME", home.toString());
        env.put("SPARK_SCALA_VERSION", "2.13");
        env.put("SPARK_LOCAL_IP", "127.0.0.1");
        // Spark's scratch files where the build keeps the tests' (pom.xml's java.io.tmpdir), not in /tmp.
        env.put("SPARK_LOCAL_DIRS", System.getProperty("java.io.tmpdir"));
    }

    /** Starts a daemon and waits (at most 60 s) for the line that says it is up. */
    private static Matcher start(String what, Pattern ready, String mainClass, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx512m",
            "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir")));
        cmd.addAll(sparkJvmOptions());
        cmd.addAll(List.of("-cp", home.resolve("jars") + "/*", mainClass));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        environment(pb.environment());
        Process p = pb.start();
        DAEMONS.add(p);
        Path log = home.resolve(what + ".log");
        AtomicReference<Matcher> found = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                 var w = Files.newBufferedWriter(log)) {
                String line;
                while ((line = r.readLine()) != null) {
                    w.write(line);
                    w.newLine();
                    w.flush();
                    Matcher m = ready.matcher(line);
                    if (found.get() == null && m.find()) {
                        synchronized (found) {
                            found.set(m);
                            found.notifyAll();
                        }
                    }
                }
            } catch (java.io.IOException ignored) {
                // The daemon was stopped.
            }
        }, "spark-" + what + "-log");
        reader.setDaemon(true);
        reader.start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        synchronized (found) {
            while (found.get() == null && p.isAlive() && System.nanoTime() < end) {
                found.wait(200);
            }
        }
        assertTrue(found.get() != null, "the Spark " + what + " did not start: " + Files.readString(log));
        return found.get();
    }

    @AfterAll
    static void stop() throws java.io.IOException {
        for (Process p : DAEMONS.reversed()) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);      // the worker's executors
            p.destroyForcibly();
        }
        // The links to the local repository's jars go before JUnit deletes the directory, which warns of each one.
        try (var links = Files.list(home.resolve("jars"))) {
            for (Path link : links.toList()) {
                Files.deleteIfExists(link);
            }
        }
    }

    private static SparkTrainCommandTest.Run paratrain(List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java(), "--enable-native-access=ALL-UNNAMED", "-Xmx1g",
            "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), "-jar",
            SparkTrainCommandTest.JAR.toString()));
        cmd.addAll(args);
        Path out = Files.createTempFile(home, "out", ".txt");
        Path err = Files.createTempFile(home, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        environment(pb.environment());
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(180, TimeUnit.SECONDS), "paratrain " + String.join(" ", args) + " did not end");
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        return new SparkTrainCommandTest.Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void aStandaloneClusterGivesTheBitsOfTheLocalBackendWithAndWithoutSparkSubmit() throws Exception {
        Path local = home.resolve("local");
        List<String> common = List.of("--data", csv.toString(), "--model", "logistic",
            "--epochs", "30", "--quiet");
        List<String> l = new ArrayList<>(List.of("train", "--nodes", "1", "--out", local.toString()));
        l.addAll(common);
        SparkTrainCommandTest.Run lr = paratrain(l);
        assertEquals(0, lr.status(), lr.err());
        for (boolean submit : List.of(false, true)) {
            Path out = home.resolve(submit ? "submitted" : "direct");
            List<String> s = new ArrayList<>(List.of("train", "--backend", "spark", "--master", masterUrl, "--nodes",
                "2", "--spark-conf", "spark.executor.cores=1", "--spark-conf", "spark.executor.memory=1g",
                "--out", out.toString()));
            if (submit) {
                s.add("--spark-submit");
            }
            s.addAll(common);
            SparkTrainCommandTest.Run r = paratrain(s);
            String what = submit ? "through spark-submit" : "with the command line's driver";
            assertEquals(0, r.status(), what + ": " + r.err() + r.out());
            SparkTrainCommandTest.assertSameModel(SparkTrainCommandTest.model(local), SparkTrainCommandTest.model(out));
            assertTrue(r.out().contains("master " + masterUrl + (submit ? " (spark-submit)" : "") + ", 2 tasks"),
                what + ": " + r.out());
        }
        try (var s = Files.list(home.resolve("work"))) {
            assertEquals(2, s.count(), "one application directory a run on the worker");
        }
    }
}
