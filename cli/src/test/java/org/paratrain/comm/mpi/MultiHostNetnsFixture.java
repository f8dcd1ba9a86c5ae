package org.paratrain.comm.mpi;

import static org.paratrain.io.Executables.onPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.Main;

/**
 * What {@link MultiHostNetnsLinksTest} and {@link MultiHostNetnsTrainingTest} share: the hosts
 * made before a class's tests and removed after them, and the runs of commands and of the script;
 * one fixture, so that each test is one topic and neither sets up the other.
 *
 * <p>Several hosts on one machine: {@code train --backend mpi --hostfile} across network namespaces
 * made by {@code scripts/multihost-netns.sh} (each its own address on a bridge of their own), with
 * Open MPI's TCP transport and its daemons started by the script's rsh agent instead of ssh. The
 * job must give the bits of the local backend with the same settings: params, final loss and
 * every epoch's loss.
 *
 * <p>The hosts here are named {@code pttest0}, {@code pttest1} (bridge in {@code pttest-sw}), not
 * the script's default, so a user's hosts are left alone;
 * {@link MultiHostNetnsTrainingTest#docCommandsRunAsWritten} runs the lines of docs/mpi.md's
 * "Several hosts" as written, and so uses (and removes) the default {@code ptnet} ones.
 * The script removes leftovers of the same names before it makes them, and {@link #removeHosts}
 * removes them afterwards, also when a test failed.
 *
 * <p>Skipped where namespaces cannot be made: not root, no {@code ip} (iproute2). Where
 * {@code PARATRAIN_REQUIRE_MPI} is set (CI, which runs as root), a missing mpirun fails, and so
 * does, as root, a missing {@code ip} or a namespace that cannot be made.
 */
abstract class MultiHostNetnsFixture {
    static final Path SCRIPT = Path.of("scripts", "multihost-netns.sh").toAbsolutePath();
    static final String NAME = "pttest";
    static final String SUBNET = "10.77.1";
    private static final long TIMEOUT_SECONDS = 120;

    @TempDir
    static Path dir;
    static Path hosts;
    static List<String> machineLinks;

    record Run(int status, String output) { }

    @BeforeAll
    static void makeHosts() throws Exception {
        boolean required = System.getenv("PARATRAIN_REQUIRE_MPI") != null;
        boolean mpirun = onPath("mpirun");
        if (!mpirun && required) {
            fail("PARATRAIN_REQUIRE_MPI is set but mpirun is not installed");
        }
        Assumptions.assumeTrue(mpirun, "mpirun is not installed");
        Assumptions.assumeTrue(isRoot(), "not root: making network namespaces needs root");
        if (!onPath("ip") && required) {
            fail("PARATRAIN_REQUIRE_MPI is set and this runs as root, but there is no ip command: install iproute2");
        }
        Assumptions.assumeTrue(onPath("ip"), "no ip command (iproute2): cannot make network namespaces");
        hosts = dir.resolve("hosts");
        machineLinks = linkNames(List.of());
        Run up = script("up");
        if (up.status() != 0 && required) {
            fail("PARATRAIN_REQUIRE_MPI is set and this runs as root, but the namespaces could not be made:\n"
                + up.output());
        }
        Assumptions.assumeTrue(up.status() == 0, "network namespaces cannot be made here:\n" + up.output());
        assertEquals(0, Main.execute(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()),
            "generate", "regression", "--samples", "500", "--features", "1", "--random-state", "42", "--out",
            dir.resolve("data").toString()), "the paper's data");
    }

    @AfterAll
    static void removeHosts() throws Exception {
        if (hosts == null) {
            return;   // skipped before anything was made
        }
        try {
            Run down = script("down");
            assertEquals(0, down.status(), down.output());
            Run left = run(List.of("ip", "netns", "list"), Map.of(), dir);
            for (String line : left.output().lines().toList()) {
                assertTrue(!line.startsWith(NAME), "namespace left behind: " + line);
            }
            assertTrue(!Files.exists(hosts), hosts + " left behind");
        } finally {
            hosts = null;     // shared by the test classes: the next one starts from nothing made
        }
    }

    /** Runs the script with this test's names and directory. */
    static Run script(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        return run(cmd, Map.of("PARATRAIN_NETNS_NAME", NAME, "PARATRAIN_NETNS_SUBNET", SUBNET, "PARATRAIN_NETNS_DIR",
            hosts.toString()), dir);
    }

    static Run run(List<String> cmd, Map<String, String> env, Path cwd) throws Exception {
        Path log = Files.createTempFile(dir, "run", ".log");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            fail(String.join(" ", cmd) + " still running after " + TIMEOUT_SECONDS + " s:\n" + Files.readString(log));
        }
        String output = Files.readString(log);
        Files.delete(log);
        return new Run(p.exitValue(), output);
    }

    /** Names of the links of a namespace ({@code -n NAME}) or of the machine's own (no option). */
    static List<String> linkNames(List<String> namespace) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(namespace);
        cmd.addAll(List.of("-o", "link", "show"));
        Run r = run(cmd, Map.of(), dir);
        assertEquals(0, r.status(), r.output());
        return r.output().lines().map(l -> l.split(":\\s+")[1].replaceFirst("@.*", "")).toList();
    }

    private static boolean isRoot() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return line.split("\\s+")[2].equals("0");   // the effective user
            }
        }
        return false;
    }

}
