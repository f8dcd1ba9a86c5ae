package org.paratrain.comm.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.paratrain.collective.Allreduces;
import org.paratrain.comm.PeerFailedException;

/**
 * Ranks in separate processes, as Spark's executors are: one is killed (SIGKILL, no goodbye)
 * in the middle of its allreduces, and every other rank, in this JVM and in the other process,
 * ends within seconds (the deadline is 120 s) with an error that names the dead rank.
 */
class TcpProcessFaultTest {

    @Test
    void aKilledRankProcessEndsEveryOtherRankPromptlyAndIsNamed() throws Exception {
        JobKey key = JobKey.random("fault-test");
        List<Process> children = new ArrayList<>();
        List<BufferedReader> outs = new ArrayList<>();
        try {
            TcpEndpoint mine = TcpEndpoint.listen("127.0.0.1");
            List<String> addresses = new ArrayList<>(List.of(mine.address()));
            for (int r = 1; r <= 2; r++) {
                Process p = new ProcessBuilder(javaBin(), "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                    TcpRankMain.class.getName(), String.valueOf(r), key.secretHex(), key.attempt())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                children.add(p);
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                outs.add(out);
                String line = out.readLine();
                assertTrue(line != null && line.startsWith("ADDR "), "rank " + r + " said " + line);
                addresses.add(line.substring(5));
            }
            for (Process p : children) {
                PrintStream in = new PrintStream(p.getOutputStream(), true, StandardCharsets.UTF_8);
                in.println(String.join(",", addresses));
            }
            TcpCommunicator comm = mine.connect(0, addresses, key, Duration.ofSeconds(120));
            for (BufferedReader out : outs) {
                assertEquals("JOINED", out.readLine());
            }
            double[] v = new double[1000];
            for (int i = 0; i < 50; i++) {
                Allreduces.create("ring").allreduce(comm, v, 0, v.length);
            }
            children.get(1).destroyForcibly();    // rank 2
            long start = System.nanoTime();
            PeerFailedException e = assertThrows(PeerFailedException.class, () -> {
                while (true) {
                    Allreduces.create("ring").allreduce(comm, v, 0, v.length);
                }
            });
            double s = (System.nanoTime() - start) * 1e-9;
            assertTrue(e.getMessage().contains("rank 2"), e.getMessage());
            assertTrue(s < 10, "rank 0 took " + s + " s to notice");
            comm.abort("the test ends");
            assertTrue(children.get(0).waitFor(20, TimeUnit.SECONDS), "rank 1 outlived the job");
            assertEquals(3, children.get(0).exitValue());
            String said = outs.get(0).readLine();
            assertTrue(said != null && said.startsWith("ENDED ") && said.contains("rank"), "rank 1 said " + said);
        } finally {
            for (Process p : children) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String javaBin() {
        return ProcessHandle.current().info().command().orElse("java");
    }
}
