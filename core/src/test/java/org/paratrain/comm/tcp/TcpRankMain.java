package org.paratrain.comm.tcp;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.List;
import org.paratrain.collective.Allreduces;

/**
 * One TCP rank as a process of its own, for {@link TcpProcessFaultTest}: prints its address, reads
 * every rank's addresses from its input, then runs ring allreduces until a peer fails, and says
 * how it ended on its output.
 */
public final class TcpRankMain {
    private TcpRankMain() { }

    /**
     * @param args rank, secret in hex, attempt
     * @throws Exception on a broken pipe from the test
     */
    public static void main(String[] args) throws Exception {
        int rank = Integer.parseInt(args[0]);
        TcpEndpoint endpoint = TcpEndpoint.listen("127.0.0.1");
        System.out.println("ADDR " + endpoint.address());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8));
        List<String> addresses = List.of(in.readLine().split(","));
        try (TcpCommunicator comm = endpoint.connect(rank, addresses, JobKey.fromHex(args[1], args[2]),
            Duration.ofSeconds(120))) {
            System.out.println("JOINED");
            System.out.flush();
            double[] v = new double[1000];
            while (true) {
                Allreduces.create("ring").allreduce(comm, v, 0, v.length);
            }
        } catch (RuntimeException e) {
            System.out.println("ENDED " + e.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }
}
