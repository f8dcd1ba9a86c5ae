package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The hosts' network: each host its own address and nothing new on the machine, links shaped to
 * their rate, a core a host; apart from {@link MultiHostNetnsTrainingTest}, which trains across
 * the hosts.
 */
class MultiHostNetnsLinksTest extends MultiHostNetnsFixture {
    /** The hosts' traffic can only stay among them: nothing new on the machine, one link and address per host. */
    @Test
    void eachHostHasOnlyItsOwnAddress() throws Exception {
        assertEquals(machineLinks, linkNames(List.of()), "the machine's own namespace gained or lost a link");
        for (int i = 0; i < 2; i++) {
            assertEquals(List.of("lo", "eth0"), linkNames(List.of("-n", NAME + i)));
            Run addr = run(List.of("ip", "-n", NAME + i, "-4", "-o", "addr", "show", "dev", "eth0"), Map.of(), dir);
            assertTrue(addr.output().contains(" " + SUBNET + "." + (i + 1) + "/24 "), addr.output());
        }
        assertEquals(SUBNET + ".1 slots=1\n" + SUBNET + ".2 slots=1\n", Files.readString(hosts.resolve("hostfile")));
    }

    /** Sends {@code bytes} from host 0 to host 1 over TCP and returns what host 1 measured, in Mbit/s. */
    private static final String THROUGHPUT = """
        import socket, sys, time
        mode, host, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
        if mode == "serve":
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, 5201))
            s.listen(1)
            c, _ = s.accept()
            got, t0 = 0, None
            while got < n:
                b = c.recv(1 << 20)
                if not b:
                    break
                t0 = t0 or time.time()
                got += len(b)
            print("%.1f" % (got * 8 / (time.time() - t0) / 1e6))
            c.sendall(b"k")
        else:
            for _ in range(100):
                try:
                    c = socket.create_connection((host, 5201))
                    break
                except OSError:
                    time.sleep(0.05)
            buf, sent = b"x" * (1 << 20), 0
            while sent < n:
                c.sendall(buf)
                sent += len(buf)
            c.recv(1)
        """;

    private static double megabits(String name, String subnet, int bytes) throws Exception {
        ProcessBuilder server = new ProcessBuilder("ip", "netns", "exec", name + "1", "/usr/bin/python3", "-c",
            THROUGHPUT, "serve", subnet + ".2", Integer.toString(bytes)).redirectErrorStream(true);
        Process p = server.start();
        try {
            Run send = run(List.of("ip", "netns", "exec", name + "0", "/usr/bin/python3", "-c", THROUGHPUT, "send",
                subnet + ".2", Integer.toString(bytes)), Map.of(), dir);
            assertEquals(0, send.status(), send.output());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the receiver did not finish");
            return Double.parseDouble(new String(p.getInputStream().readAllBytes()).strip());
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * PARATRAIN_NETNS_RATE shapes every host's link: 24 MB carried at about 100 Mbit/s under
     * {@code 100mbit} (a token bucket caps it; the lower bound is loose for a busy machine), and
     * several times that unshaped; the rate is recorded in DIR/link, and each host's processes run
     * on a core of their own where there are cores for it.
     */
    @Test
    void shapedLinksCarryTheirRateAndEachHostHasACore() throws Exception {
        String name = "ptrate";
        String subnet = "10.77.2";
        Path shapedDir = dir.resolve("shaped");
        Map<String, String> env = Map.of("PARATRAIN_NETNS_NAME", name, "PARATRAIN_NETNS_SUBNET", subnet,
            "PARATRAIN_NETNS_DIR", shapedDir.toString(), "PARATRAIN_NETNS_RATE", "100mbit");
        Run up = run(List.of("bash", SCRIPT.toString(), "up"), env, dir);
        assertEquals(0, up.status(), up.output());
        try {
            double shaped = megabits(name, subnet, 24_000_000);
            assertTrue(shaped > 50 && shaped < 110, "100mbit links carried " + shaped + " Mbit/s");
            double unshaped = megabits(NAME, SUBNET, 24_000_000);
            System.out.printf("netns links: 100mbit carried %.1f Mbit/s, unshaped %.1f Mbit/s%n", shaped, unshaped);
            assertTrue(unshaped > 3 * shaped, "unshaped " + unshaped + " Mbit/s against shaped " + shaped);
            List<String> link = Files.readAllLines(shapedDir.resolve("link"));
            assertTrue(link.contains("rate=100mbit") && link.contains("rate_bits=100000000"), link.toString());
            // Half a millisecond at the rate is 6,250 bytes: the bucket holds its least, 32 KiB.
            assertTrue(link.contains("burst_bytes=32768"), link.toString());
            boolean cores = Runtime.getRuntime().availableProcessors() >= 2;
            assertTrue(link.contains("pinned=" + (cores ? 1 : 0)), link.toString());
            if (cores) {
                Run second = run(List.of(shapedDir.resolve("rsh-agent").toString(), subnet + ".2", "taskset -cp $$"),
                    Map.of(), dir);
                assertTrue(second.output().strip().endsWith("list: 1"), second.output());
                Run first = run(List.of("bash", SCRIPT.toString(), "exec", "sh", "-c", "taskset -cp $$"), env, dir);
                assertTrue(first.output().strip().endsWith("list: 0"), first.output());
            }
        } finally {
            Run down = run(List.of("bash", SCRIPT.toString(), "down"), env, dir);
            assertEquals(0, down.status(), down.output());
        }
        Run bad = run(List.of("bash", SCRIPT.toString(), "up"), Map.of("PARATRAIN_NETNS_RATE", "fast"), dir);
        assertEquals(1, bad.status());
        assertTrue(bad.output().contains("PARATRAIN_NETNS_RATE must be like 100mbit"), bad.output());
    }
}
