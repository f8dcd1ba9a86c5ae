package org.paratrain.comm;

import java.util.Optional;

/**
 * A group of ranks that exchange messages of doubles or of 64-bit integers: the one interface
 * every backend implements completely (in-JVM threads, MPI processes).
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

    /** {@return this rank's number, {@code 0 <= rank < size}} */
    int rank();

    /** {@return the number of ranks in the group} */
    int size();

    /**
     * Sends {@code buf[offset, offset + length)} to rank {@code dest} with {@code tag}.
     * The buffer may be reused as soon as this returns.
     *
     * @param buf    the values to send
     * @param offset index of the first value to send
     * @param length number of values, 0 or more
     * @param dest   the receiving rank; sending to oneself is allowed
     * @param tag    {@code 0..}{@link #MAX_TAG}; the receiver matches on it
     * @throws PeerFailedException if another rank failed
     */
    void send(double[] buf, int offset, int length, int dest, int tag);

    /**
     * Receives the next message from {@code source} with {@code tag} into
     * {@code buf[offset, ...)}, waiting for it.
     *
     * @param buf    where the values go
     * @param offset index of the first value received
     * @param length room in {@code buf} from {@code offset}: the longest message accepted
     * @param source the sending rank
     * @param tag    the sender's tag; messages with other tags stay queued
     * @return the message's length, at most {@code length}
     * @throws MessageTooLongException if the message is longer than {@code length}
     * @throws PeerFailedException if another rank failed while this one waited
     */
    int recv(double[] buf, int offset, int length, int source, int tag);

    /**
     * Sends to {@code dest} and receives from {@code source} at once, as {@code MPI_Sendrecv}:
     * safe where two ranks exchange large messages, which two blocking sends followed by two
     * receives are not under MPI.
     *
     * @param sendBuf    the values to send
     * @param sendOffset index of the first value to send
     * @param sendLength number of values to send
     * @param dest       the rank sent to
     * @param sendTag    tag of the message sent
     * @param recvBuf    where the received values go; must not overlap the values sent
     * @param recvOffset index of the first value received
     * @param recvLength room in {@code recvBuf}: the longest message accepted
     * @param source     the rank received from (may differ from {@code dest}, as in a ring)
     * @param recvTag    tag of the message received
     * @return the received message's length
     * @throws MessageTooLongException if the received message is longer than {@code recvLength}
     */
    int sendRecv(double[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                 double[] recvBuf, int recvOffset, int recvLength, int source, int recvTag);

    /**
     * As {@link #send(double[], int, int, int, int)}, for 64-bit integer words: the words of a
     * fixed-point sum, whose integer addition is exact and associative. A message of longs is
     * received only by the long variants of {@code recv} and {@code sendRecv}.
     *
     * @param buf    the words to send
     * @param offset index of the first word to send
     * @param length number of words, 0 or more
     * @param dest   the receiving rank; sending to oneself is allowed
     * @param tag    {@code 0..}{@link #MAX_TAG}; the receiver matches on it
     * @throws PeerFailedException if another rank failed
     */
    void send(long[] buf, int offset, int length, int dest, int tag);

    /**
     * As {@link #recv(double[], int, int, int, int)}, for 64-bit integer words.
     *
     * @param buf    where the words go
     * @param offset index of the first word received
     * @param length room in {@code buf} from {@code offset}: the longest message accepted
     * @param source the sending rank
     * @param tag    the sender's tag; messages with other tags stay queued
     * @return the message's length, at most {@code length}
     * @throws MessageTooLongException if the message is longer than {@code length}
     * @throws PeerFailedException if another rank failed while this one waited
     * @throws IllegalStateException if the message that matched carries doubles, not words
     */
    int recv(long[] buf, int offset, int length, int source, int tag);

    /**
     * As {@link #sendRecv(double[], int, int, int, int, double[], int, int, int, int)}, for
     * 64-bit integer words both ways.
     *
     * @param sendBuf    the words to send
     * @param sendOffset index of the first word to send
     * @param sendLength number of words to send
     * @param dest       the rank sent to
     * @param sendTag    tag of the message sent
     * @param recvBuf    where the received words go; must not overlap the words sent
     * @param recvOffset index of the first word received
     * @param recvLength room in {@code recvBuf}: the longest message accepted
     * @param source     the rank received from
     * @param recvTag    tag of the message received
     * @return the received message's length
     * @throws MessageTooLongException if the received message is longer than {@code recvLength}
     */
    int sendRecv(long[] sendBuf, int sendOffset, int sendLength, int dest, int sendTag,
                 long[] recvBuf, int recvOffset, int recvLength, int source, int recvTag);

    /** Returns once every rank has called it. */
    void barrier();

    /** {@return wall-clock time in seconds from an arbitrary origin, for intervals on this rank} */
    double wtime();

    /** {@return the short name of the backend, as results record it ({@code local}, {@code mpi})} */
    String backend();

    /**
     * Tells the backend which epoch this rank has begun (1 for the first), so that messages
     * about a hang or a crash can say it. Cheap (a field write), called once per epoch; a
     * backend without such messages ignores it.
     *
     * @param epoch the epoch begun, 1-based
     */
    default void epoch(int epoch) {
        // Nothing to remember where no message names the epoch.
    }

    /**
     * {@return the collectives this backend performs itself (MPI's own allreduce and broadcast),
     * or empty where it has none (the local backend, whose collectives are the algorithms of
     * {@code org.paratrain.collective} on {@link #send} and {@link #recv})}
     * Cheap: callers may ask on every call.
     */
    default Optional<NativeCollectives> nativeCollectives() {
        return Optional.empty();
    }

    /**
     * {@return whether another thread than the rank's may make this rank's calls, one at a time
     * and while the rank's own thread makes none} An exchange that sends the gradient in buckets
     * during the backward pass calls from a thread of its own ({@code train.OverlappedSum}); a
     * backend that cannot take that (MPI initialised with {@code MPI_THREAD_SINGLE}) says no here
     * and the exchange waits for the backward pass instead. Cheap.
     */
    default boolean callsFromAnotherThread() {
        return false;
    }

    /**
     * {@return the ranks of this one's process, where several ranks of the job share a process
     * (MPI with threads as ranks), or empty where every rank is alone in its process or all are
     * in one (the local backend, whose ranks are cheap to reach anyway)}
     * Cheap: callers may ask on every call.
     */
    default Optional<ProcessGroup> processGroup() {
        return Optional.empty();
    }

    /**
     * Checks arguments common to send and receive, with messages that name the culprit: for
     * backends, before anything is sent or waited for.
     *
     * @param c      the communicator, for its size
     * @param buf    the buffer sent from or received into
     * @param offset index of the first value
     * @param length number of values (or room for them)
     * @param peer   the rank sent to or received from
     * @param tag    the message's tag
     * @throws IllegalArgumentException if the peer or the tag is out of range
     * @throws IndexOutOfBoundsException if the range does not fit the buffer
     */
    static void checkArgs(Communicator c, double[] buf, int offset, int length, int peer, int tag) {
        checkArgs(c, buf.length, offset, length, peer, tag);
    }

    /**
     * As {@link #checkArgs(Communicator, double[], int, int, int, int)}, for a buffer of words.
     *
     * @param c      the communicator, for its size
     * @param buf    the buffer sent from or received into
     * @param offset index of the first word
     * @param length number of words (or room for them)
     * @param peer   the rank sent to or received from
     * @param tag    the message's tag
     * @throws IllegalArgumentException if the peer or the tag is out of range
     * @throws IndexOutOfBoundsException if the range does not fit the buffer
     */
    static void checkArgs(Communicator c, long[] buf, int offset, int length, int peer, int tag) {
        checkArgs(c, buf.length, offset, length, peer, tag);
    }

    private static void checkArgs(Communicator c, int bufLength, int offset, int length, int peer, int tag) {
        if (peer < 0 || peer >= c.size()) {
            throw new IllegalArgumentException("peer rank " + peer + " is outside [0, " + c.size() + ")");
        }
        if (tag < 0 || tag > MAX_TAG) {
            throw new IllegalArgumentException("tag " + tag + " is outside [0, " + MAX_TAG + "]");
        }
        if (offset < 0 || length < 0 || offset > bufLength - length) {
            throw new IndexOutOfBoundsException("range [" + offset + ", " + offset + "+" + length
                + ") does not fit a buffer of " + bufLength);
        }
    }
}
