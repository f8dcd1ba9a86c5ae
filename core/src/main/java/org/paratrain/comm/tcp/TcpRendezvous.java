package org.paratrain.comm.tcp;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.paratrain.comm.BackendException;

/**
 * Where the ranks of a job learn each other's addresses: a small server (on a Spark driver) that
 * each rank tells its {@link TcpEndpoint#address()} and that answers every rank of an attempt
 * with all of them once the attempt's last rank has told it. Spark's own
 * {@code BarrierTaskContext.allGather} does the same but waits in steps of a whole second, which
 * on a small model is most of a fit.
 *
 * <p>Each rank's message carries an HMAC under the job's secret (over its address, a fresh
 * nonce, the attempt, its rank and the job's size) and the answer one over the list and that
 * nonce, so neither side accepts the other's words without the secret. Ranks are grouped by the
 * attempt they name: a retried stage's ranks form a group of their own.
 */
public final class TcpRendezvous implements AutoCloseable {
    private static final int MAGIC = 0x50545256;     // "PTRV"
    private final ServerSocket server;
    private final JobKey key;
    private final int size;
    private final Map<String, Socket[]> waiting = new HashMap<>();
    private final Map<String, String[]> told = new HashMap<>();
    private final Map<String, byte[][]> nonces = new HashMap<>();
    private final Thread acceptor;

    private TcpRendezvous(ServerSocket server, JobKey key, int size) {
        this.server = server;
        this.key = key;
        this.size = size;
        this.acceptor = Thread.ofPlatform().daemon().name("paratrain-rendezvous").start(this::accept);
    }

    /**
     * Opens the server on an ephemeral port of {@code host}.
     *
     * @param host the address the ranks reach this process by
     * @param size the job's ranks
     * @param key  the job's secret (its attempt name is not used: each rank names its own)
     * @return the open server; {@link #close} it when the job has ended
     */
    public static TcpRendezvous open(String host, int size, JobKey key) {
        try {
            ServerSocket s = new ServerSocket();
            s.bind(new InetSocketAddress(InetAddress.getByName(host), 0), size * 2);
            return new TcpRendezvous(s, key, size);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a rendezvous on " + host + ": " + e.getMessage(), e);
        }
    }

    /** {@return host:port, for the ranks} */
    public String address() {
        return server.getInetAddress().getHostAddress() + ":" + server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread.ofVirtual().start(() -> hello(s));
            } catch (IOException e) {
                return;     // closed
            }
        }
    }

    /** Reads one rank's message; answers the attempt's ranks once all have come. */
    private void hello(Socket s) {
        try {
            s.setSoTimeout(30_000);
            DataInputStream in = new DataInputStream(s.getInputStream());
            if (in.readInt() != MAGIC) {
                s.close();
                return;
            }
            String attempt = in.readUTF();
            int rank = in.readInt();
            int n = in.readInt();
            String address = in.readUTF();
            byte[] nonce = in.readNBytes(32);
            byte[] mac = in.readNBytes(32);
            JobKey k = key.forAttempt(attempt);
            if (n != size || rank < 0 || rank >= size || !MessageDigest.isEqual(mac,
                k.mac((byte) 'R', address.getBytes(StandardCharsets.UTF_8), nonce, rank, n))) {
                s.close();          // not this job's: the rank's own deadline will say so
                return;
            }
            synchronized (this) {
                Socket[] group = waiting.computeIfAbsent(attempt, a -> new Socket[size]);
                String[] addresses = told.computeIfAbsent(attempt, a -> new String[size]);
                byte[][] ns = nonces.computeIfAbsent(attempt, a -> new byte[size][]);
                if (group[rank] != null) {
                    group[rank].close();            // the same rank again: the newer connection counts
                }
                group[rank] = s;
                addresses[rank] = address;
                ns[rank] = nonce;
                if (Arrays.stream(group).allMatch(x -> x != null)) {
                    answer(k, group, addresses, ns);
                    waiting.remove(attempt);
                    told.remove(attempt);
                    nonces.remove(attempt);
                }
            }
        } catch (IOException e) {
            try {
                s.close();
            } catch (IOException ignored) {
                // Nothing more to do with a broken connection.
            }
        }
    }

    private static void answer(JobKey k, Socket[] group, String[] addresses, byte[][] nonces) {
        byte[] list = String.join("\n", addresses).getBytes(StandardCharsets.UTF_8);
        for (int r = 0; r < group.length; r++) {
            try (Socket s = group[r]) {
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(addresses.length);
                for (String a : addresses) {
                    out.writeUTF(a);
                }
                out.write(k.mac((byte) 'L', list, nonces[r], r, addresses.length));
                out.flush();
            } catch (IOException e) {
                // That rank has gone; the others still get their answer, and the mesh will name it.
            }
        }
    }

    /**
     * Tells the rendezvous this rank's address and waits for every rank's.
     *
     * @param rendezvous the server's host:port
     * @param rank       this rank
     * @param size       the job's ranks
     * @param address    this rank's {@link TcpEndpoint#address()}
     * @param key        the job's key, for this attempt
     * @param timeout    the longest wait for the other ranks
     * @return every rank's address, by rank
     * @throws BackendException if not every rank came within the timeout
     * @throws UncheckedIOException if the server cannot be reached or its answer is not the job's
     */
    public static List<String> exchange(String rendezvous, int rank, int size, String address, JobKey key,
                                        Duration timeout) {
        int colon = rendezvous.lastIndexOf(':');
        byte[] nonce = new byte[32];
        new SecureRandom().nextBytes(nonce);
        long start = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(rendezvous.substring(0, colon),
                Integer.parseInt(rendezvous.substring(colon + 1))), (int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            s.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis())));
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeInt(MAGIC);
            out.writeUTF(key.attempt());
            out.writeInt(rank);
            out.writeInt(size);
            out.writeUTF(address);
            out.write(nonce);
            out.write(key.mac((byte) 'R', address.getBytes(StandardCharsets.UTF_8), nonce, rank, size));
            out.flush();
            DataInputStream in = new DataInputStream(s.getInputStream());
            int n = in.readInt();
            if (n != size) {
                throw new UncheckedIOException(new IOException("the rendezvous at " + rendezvous + " answered " + n
                    + " addresses for a job of " + size));
            }
            List<String> all = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                all.add(in.readUTF());
            }
            byte[] mac = in.readNBytes(32);
            byte[] list = String.join("\n", all).getBytes(StandardCharsets.UTF_8);
            if (!MessageDigest.isEqual(mac, key.mac((byte) 'L', list, nonce, rank, size))) {
                throw new UncheckedIOException(new IOException("the rendezvous at " + rendezvous
                    + " does not hold this job's key"));
            }
            return all;
        } catch (SocketTimeoutException e) {
            throw new BackendException(String.format(java.util.Locale.ROOT, "rank %d: not every rank of %d reached "
                + "the rendezvous at %s within %.1f s (a task did not start, or cannot reach the driver)", rank, size,
                rendezvous, (System.nanoTime() - start) * 1e-9));
        } catch (IOException e) {
            throw new UncheckedIOException("rank " + rank + ": rendezvous at " + rendezvous + ": " + e.getMessage(), e);
        }
    }

    /** Stops the server and drops every rank still waiting (their calls fail at once). */
    @Override
    public synchronized void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // Closing is all that is left to do.
        }
        for (Socket[] group : waiting.values()) {
            for (Socket s : group) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // Already gone.
                    }
                }
            }
        }
        waiting.clear();
        acceptor.interrupt();
    }
}
