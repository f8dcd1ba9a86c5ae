package org.paratrain.comm.tcp;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import org.paratrain.comm.CommTimeoutException;

/**
 * Where one rank of a TCP job listens, and how it joins the job's mesh.
 *
 * <p>The order of a start: every rank {@link #listen}s on an ephemeral port of its own host and
 * keeps the socket open (binding port 0, closing and binding again would race for the port); the
 * ranks exchange {@link #address()}es by whatever means their scheduler has (Spark's
 * {@code BarrierTaskContext.allGather}); each then calls {@link #connect}. Rank i connects to
 * every rank below it and accepts every rank above it: rank 0 only accepts, so no rank waits on a
 * rank that waits on it, and the mesh forms in at most p - 1 rounds.
 *
 * <p>Each connection is authenticated both ways by its {@link JobKey} before it carries a
 * message: a stranger, or a rank of an earlier attempt, is refused and the rank goes on waiting
 * for the right one until the deadline, which then names the ranks that never came.
 */
public final class TcpEndpoint implements AutoCloseable {
    private static final long MAGIC = 0x5054_5443_5030_3031L;    // "PTTCP001"
    private static final int NONCE = 32;
    private static final SecureRandom RANDOM = new SecureRandom();
    private final ServerSocketChannel server;
    private final String host;
    /** The whole wait of {@link #connect}, for its messages. */
    private double waitSeconds;

    private TcpEndpoint(ServerSocketChannel server, String host) {
        this.server = server;
        this.host = host;
    }

    /**
     * Listens on an ephemeral port of {@code host}.
     *
     * @param host the address peers reach this rank at (an executor's host name or IP; loopback
     *             for ranks of one machine)
     * @return the open endpoint
     * @throws UncheckedIOException if the port cannot be bound
     */
    public static TcpEndpoint listen(String host) {
        try {
            ServerSocketChannel s = ServerSocketChannel.open();
            s.bind(new InetSocketAddress(host, 0), 64);
            return new TcpEndpoint(s, host);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ": " + e.getMessage(), e);
        }
    }

    /** {@return {@code host:port}, the address to give the other ranks} */
    public String address() {
        try {
            return host + ":" + ((InetSocketAddress) server.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Connects this rank to every other and returns its communicator; closes the listening socket.
     *
     * @param rank      this rank, {@code 0 <= rank < addresses.size()}
     * @param addresses every rank's {@link #address()}, by rank
     * @param key       the job's secret and attempt, the same on every rank
     * @param timeout   how long to wait for the mesh, and later for any one communication call
     * @return the rank's communicator
     * @throws CommTimeoutException naming a rank that did not connect in time
     */
    public TcpCommunicator connect(int rank, List<String> addresses, JobKey key, Duration timeout) {
        int p = addresses.size();
        if (rank < 0 || rank >= p) {
            throw new IllegalArgumentException("rank " + rank + " is outside [0, " + p + ")");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        waitSeconds = timeout.toNanos() * 1e-9;
        PeerLink[] links = new PeerLink[p];
        try {
            for (int to = 0; to < rank; to++) {
                links[to] = new PeerLink(to, dial(addresses.get(to), rank, to, key, deadline));
            }
            int refused = 0;
            for (int waiting = p - 1 - rank; waiting > 0;) {
                SocketChannel c = acceptOne(rank, deadline, links, refused);
                int from = c == null ? -1 : answer(c, rank, p, key, links, deadline);
                if (from < 0) {
                    refused++;
                    continue;
                }
                links[from] = new PeerLink(from, c);
                waiting--;
            }
            server.close();
            return new TcpCommunicator(rank, links, timeout.toNanos());
        } catch (IOException e) {
            closeAll(links);
            throw new UncheckedIOException("rank " + rank + " could not join the job: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeAll(links);
            throw e;
        }
    }

    /** Connects to a lower rank and proves the key both ways; retries a refused connection until the deadline. */
    private SocketChannel dial(String address, int from, int to, JobKey key, long deadline) throws IOException {
        int colon = address.lastIndexOf(':');
        InetSocketAddress at = new InetSocketAddress(address.substring(0, colon),
            Integer.parseInt(address.substring(colon + 1)));
        while (true) {
            SocketChannel c = SocketChannel.open();
            try {
                c.setOption(StandardSocketOptions.TCP_NODELAY, true);
                c.socket().connect(at, remainingMillis(deadline, from, to, "connect"));
                Socket s = c.socket();
                s.setSoTimeout(remainingMillis(deadline, from, to, "handshake"));
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] mine = nonce();
                out.writeLong(MAGIC);
                out.writeInt(from);
                out.writeInt(to);
                out.write(mine);
                out.flush();
                byte[] theirs = in.readNBytes(NONCE);
                out.write(key.mac((byte) 'C', theirs, mine, from, to));
                out.flush();
                byte[] proof = in.readNBytes(32);
                if (!MessageDigest.isEqual(proof, key.mac((byte) 'A', theirs, mine, from, to))) {
                    throw new IOException("rank " + to + " at " + address + " does not hold this job's key "
                        + "(another job, or another attempt, listens there)");
                }
                return c;
            } catch (java.net.ConnectException e) {
                c.close();
                sleepBriefly(deadline, from, to);
            } catch (SocketTimeoutException e) {
                c.close();
                throw new CommTimeoutException(to, "connect", -1, waitSeconds);
            } catch (IOException | RuntimeException e) {
                c.close();
                throw e;
            }
        }
    }

    private SocketChannel acceptOne(int rank, long deadline, PeerLink[] links, int refused) throws IOException {
        server.socket().setSoTimeout(remainingMillis(deadline, rank, missing(links, rank), "accept"));
        try {
            SocketChannel c = server.socket().accept().getChannel();
            c.setOption(StandardSocketOptions.TCP_NODELAY, true);
            return c;
        } catch (SocketTimeoutException e) {
            throw new CommTimeoutException(missing(links, rank), "connect" + (refused == 0 ? ""
                : "; refused " + refused + " connection(s) without this job's key: a stale attempt or another job"),
                -1, waitSeconds);
        }
    }

    /**
     * Checks a connection from a higher rank.
     *
     * @return the peer's rank, or -1 if it was refused (and closed)
     */
    private static int answer(SocketChannel c, int rank, int p, JobKey key, PeerLink[] links, long deadline) {
        try {
            Socket s = c.socket();
            s.setSoTimeout((int) Math.max(1, Math.min(10_000, (deadline - System.nanoTime()) / 1_000_000)));
            DataInputStream in = new DataInputStream(s.getInputStream());
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            if (in.readLong() != MAGIC) {
                throw new IOException("not a paratrain rank");
            }
            int from = in.readInt();
            int to = in.readInt();
            byte[] theirs = in.readNBytes(NONCE);
            if (to != rank || from <= rank || from >= p || links[from] != null) {
                throw new IOException("unexpected ranks " + from + " -> " + to);
            }
            byte[] mine = nonce();
            out.write(mine);
            out.flush();
            byte[] proof = in.readNBytes(32);
            if (!MessageDigest.isEqual(proof, key.mac((byte) 'C', mine, theirs, from, to))) {
                throw new IOException("wrong key");
            }
            out.write(key.mac((byte) 'A', mine, theirs, from, to));
            out.flush();
            return from;
        } catch (IOException e) {
            try {
                c.close();
            } catch (IOException ignored) {
                // Refused either way.
            }
            return -1;
        }
    }

    private static int missing(PeerLink[] links, int rank) {
        for (int r = links.length - 1; r > rank; r--) {
            if (links[r] == null) {
                return r;
            }
        }
        return rank;
    }

    private static byte[] nonce() {
        byte[] n = new byte[NONCE];
        RANDOM.nextBytes(n);
        return n;
    }

    private int remainingMillis(long deadline, int rank, int peer, String what) {
        long ms = (deadline - System.nanoTime()) / 1_000_000;
        if (ms <= 0) {
            throw new CommTimeoutException(peer, what, -1, waitSeconds);
        }
        return (int) Math.min(Integer.MAX_VALUE, ms);
    }

    private void sleepBriefly(long deadline, int from, int to) {
        remainingMillis(deadline, from, to, "connect");
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while connecting to rank " + to, e);
        }
    }

    private static void closeAll(PeerLink[] links) {
        for (PeerLink l : links) {
            Mesh.close(l);
        }
    }

    /** Stops listening (once {@link #connect} has run, the socket is already closed). */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // Nothing to do.
        }
    }
}
