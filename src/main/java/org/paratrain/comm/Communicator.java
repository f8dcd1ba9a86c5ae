package org.paratrain.comm;

/**
 * A group of ranks that exchange messages of doubles: the one interface every backend
 * implements completely (in-JVM threads, MPI processes).
 *
 * <p>Semantics follow MPI's: messages from one sender to one receiver with the same tag
 * are received in the order they were sent; a receive names its source and tag and waits
 * for a matching message, leaving messages with other tags queued. {@link #send} may return
 * before the message is received (it is buffered), so a rank may send to a peer that is
 * itself sending. User tags are {@code 0..}{@link #MAX_TAG}.
 *
 * <p>If any rank fails, every blocking call on every other rank ends promptly with a
 * {@link PeerFailedException}, so no rank waits forever for a dead peer.
 */
public interface Communicator {

    /** The largest tag a program may use (MPI guarantees at least 32767). */
    int MAX_TAG = 32767;

    /** This rank's number, {@code 0 <= rank < size}. */
    int rank();

    /** Number of ranks in the group. */
    int size();

    /**
     * Sends {@code buf[offset, offset + length)} to rank {@code dest} with {@code tag}.
     * The buffer may be reused as soon as this returns.
     */
    void send(double[] buf, int offset, int length, int dest, int tag);

    /**
     * Receives the next message from {@code source} with {@code tag} into
     * {@code buf[offset, ...)} and returns its length.
     *
     * @throws MessageTooLongException if the message is longer than {@code length}
     */
    int recv(double[] buf, int offset, int length, int source, int tag);

    /**
     * Sends to {@code dest} and receives from {@code source} at once, as {@code MPI_Sendrecv}:
     * safe where two ranks exchange large messages, which two blocking sends followed by two
     * receives are not under MPI. Returns the received length.
     */
    int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                 double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag);

    /** Returns once every rank has called it. */
    void barrier();

    /** Wall-clock time in seconds from an arbitrary origin, for intervals on this rank. */
    double wtime();

    /** Short name of the backend, as it appears in results ({@code local}, {@code mpi}). */
    String backend();

    /**
     * Tells the backend which epoch this rank has begun (1 for the first), so that messages
     * about a hang or a crash can say it. Cheap (a field write), called once per epoch; a
     * backend without such messages ignores it.
     */
    default void epoch(int epoch) {
        // Nothing to remember where no message names the epoch.
    }

    /** Checks arguments common to send and receive, with messages that name the culprit. */
    static void checkArgs(Communicator c, double[] buf, int offset, int length, int peer, int tag) {
        if (peer < 0 || peer >= c.size()) {
            throw new IllegalArgumentException("peer rank " + peer + " is outside [0, " + c.size() + ")");
        }
        if (tag < 0 || tag > MAX_TAG) {
            throw new IllegalArgumentException("tag " + tag + " is outside [0, " + MAX_TAG + "]");
        }
        if (offset < 0 || length < 0 || offset > buf.length - length) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + "+" + length
                + ") does not fit a buffer of " + buf.length);
        }
    }
}
