package org.paratrain.comm.tcp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.LongBuffer;
import java.nio.channels.SocketChannel;

/**
 * One authenticated connection to one peer, driven by the rank's own thread: what is written to
 * it and the parse of what arrives.
 *
 * <p>A message on the wire is a 16-byte little-endian header (tag, kind, length in elements,
 * zero) and its payload. Incoming bytes are parsed as they arrive: a message that matches the
 * receive posted on this link goes straight into the caller's array; any other is kept in
 * {@link #early} (a copy into a reused array), so a peer is never blocked by a receiver that
 * wants another tag first. The buffers are direct and
 * allocated once, with views made once, so a matched message costs two bulk copies and no
 * garbage.
 */
final class PeerLink {
    static final int KIND_DOUBLES = 0;
    static final int KIND_LONGS = 1;
    /** The peer closes after its last message: an end of stream after this is not a failure. */
    static final int KIND_BYE = 2;
    /** The peer failed; the payload is its reason in UTF-8 bytes (as longs' bytes, padded). */
    static final int KIND_ABORT = 3;
    static final int HEADER = 16;
    /**
     * Longer messages that nobody waits for on this link stay in the socket (the link pauses)
     * until a receive is posted here, as MPI's rendezvous protocol holds long sends: no copy,
     * no buffer the size of the message. Shorter ones are kept at once, as eager sends are.
     */
    static final int EAGER = 4096;
    private static final int BUFFER = 1 << 20;

    final int peer;
    final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    /** Filled from its start; drained through {@link #drain}; both start again when it is empty. */
    private final ByteBuffer out = ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer drain = out.duplicate();
    private final DoubleBuffer inDoubles = in.duplicate().order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer();
    private final LongBuffer inLongs = in.duplicate().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();
    private final DoubleBuffer outDoubles = out.duplicate().order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer();
    private final LongBuffer outLongs = out.duplicate().order(ByteOrder.LITTLE_ENDIAN).asLongBuffer();

    /** Messages that arrived before a receive asked for them. */
    final EarlyMessages early = new EarlyMessages();
    /** The peer said goodbye (it ended normally) or failed: no more messages will come. */
    boolean said;
    /** A long message nobody waits for is at the head of the input: read no further until a receive is posted. */
    boolean paused;
    /** Why the peer failed, when it told us before it went. */
    String abortReason;

    // The receive posted on this link, if any.
    private Object postedBuf;
    private int postedOffset;
    private int postedLength;
    private int postedTag;
    private boolean posted;
    /** Elements of the matched message; -1 while it is not complete. */
    private int matched = -1;

    // The message being parsed: its header and how many elements have arrived.
    private boolean inMessage;
    private int curTag;
    private int curKind;
    private int curLength;
    private int curDone;
    /** Where the current message goes: the posted buffer (null) or an early message. */
    private EarlyMessages.Message curEarly;

    PeerLink(int peer, SocketChannel channel) throws IOException {
        this.peer = peer;
        this.channel = channel;
        channel.configureBlocking(false);
        in.limit(0);
    }

    /** Posts a receive: the next message with {@code tag} from this peer goes into {@code buf}. */
    void post(Object buf, int offset, int length, int tag) {
        postedBuf = buf;
        postedOffset = offset;
        postedLength = length;
        postedTag = tag;
        posted = true;
        matched = -1;
        if (paused) {
            paused = false;
            parse();
        }
    }

    /** {@return the length of the posted receive's message once it is complete, else -1} */
    int matched() {
        return matched;
    }

    void unpost() {
        posted = false;
        postedBuf = null;
    }

    /** {@return whether a receive is posted and not yet matched to a message} */
    boolean waiting() {
        return posted && matched < 0;
    }

    /** {@return the first early message with {@code tag}, complete or not, or null} */
    EarlyMessages.Message firstEarly(int tag) {
        return early.first(tag);
    }

    /**
     * Reads what the socket has and parses it.
     *
     * @return false at the end of the stream
     */
    boolean readAvailable() throws IOException {
        if (paused) {
            return true;
        }
        in.compact();
        int n = channel.read(in);
        in.flip();
        parse();
        return n >= 0;
    }

    private void parse() {
        while (true) {
            if (!inMessage) {
                if (in.remaining() < HEADER) {
                    return;
                }
                curTag = in.getInt();
                curKind = in.getInt();
                curLength = in.getInt();
                in.getInt();
                curDone = 0;
                inMessage = true;
                if (!begin()) {
                    in.position(in.position() - HEADER);
                    inMessage = false;
                    paused = true;
                    return;
                }
            }
            if (curKind == KIND_BYE || curKind == KIND_ABORT) {
                if (in.remaining() < curLength) {
                    return;
                }
                byte[] reason = new byte[curLength];
                in.get(reason);
                said = true;
                if (curKind == KIND_ABORT) {
                    abortReason = new String(reason, java.nio.charset.StandardCharsets.UTF_8).strip();
                }
                inMessage = false;
                continue;
            }
            int n = Math.min(curLength - curDone, in.remaining() / 8);
            if (n == 0 && curDone < curLength) {
                return;
            }
            copyIn(n);
            curDone += n;
            if (curDone == curLength) {
                inMessage = false;
                if (curEarly == null) {
                    matched = curLength;
                }
            }
        }
    }

    /**
     * Decides where a message whose header just arrived goes.
     *
     * @return false if it should wait in the socket (a long message nobody waits for here)
     */
    private boolean begin() {
        curEarly = null;
        if (curKind != KIND_DOUBLES && curKind != KIND_LONGS) {
            return true;
        }
        boolean mine = waiting() && postedTag == curTag && firstEarly(curTag) == null;
        if (mine && (curKind == KIND_LONGS) != (postedBuf instanceof long[])) {
            throw new IllegalStateException("message from rank " + peer + " with tag " + curTag + " carries "
                + (curKind == KIND_LONGS ? "64-bit words" : "doubles") + ", but the receive expects "
                + (curKind == KIND_LONGS ? "doubles" : "64-bit words"));
        }
        if (mine && curLength > postedLength) {
            throw new org.paratrain.comm.MessageTooLongException(peer, curTag, curLength, postedLength);
        }
        if (!mine && !waiting() && curLength > EAGER) {
            return false;
        }
        if (!mine) {
            curEarly = early.add(curTag, curKind, curLength);
        }
        return true;
    }

    private void copyIn(int n) {
        int pos = in.position();
        if (curKind == KIND_DOUBLES) {
            inDoubles.limit(pos / 8 + n).position(pos / 8);
            double[] dst = curEarly == null ? (double[]) postedBuf : (double[]) curEarly.values;
            inDoubles.get(dst, (curEarly == null ? postedOffset : 0) + curDone, n);
        } else {
            inLongs.limit(pos / 8 + n).position(pos / 8);
            long[] dst = curEarly == null ? (long[]) postedBuf : (long[]) curEarly.values;
            inLongs.get(dst, (curEarly == null ? postedOffset : 0) + curDone, n);
        }
        in.position(pos + 8 * n);
        if (curEarly != null) {
            curEarly.done += n;
        }
    }

    // ---- writing: the caller fills the out buffer and drains it through flush() ----

    /** {@return whether everything queued has been written} */
    boolean flushed() {
        return out.position() == 0;
    }

    /**
     * Writes what the socket takes now. The buffer is not compacted, which would move values off
     * their 8-byte places in the views; it starts again from zero once it is empty.
     *
     * @return whether the out buffer is empty
     */
    boolean flush() throws IOException {
        if (out.position() == 0) {
            return true;
        }
        drain.limit(out.position());
        channel.write(drain);
        if (drain.position() == out.position()) {
            out.clear();
            drain.clear();
            return true;
        }
        return false;
    }

    /** Queues a header if there is room: {@code true} if queued. */
    boolean putHeader(int tag, int kind, int length) {
        if (out.remaining() < HEADER) {
            return false;
        }
        out.putInt(tag).putInt(kind).putInt(length).putInt(0);
        return true;
    }

    /**
     * Queues a goodbye or an abort with its reason (cut to 1 KiB), padded with spaces to whole
     * 8-byte words so that the stream stays aligned.
     *
     * @return false if the out buffer has no room for it now (flush first)
     */
    boolean putFarewell(int kind, String reason) {
        byte[] b = reason.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        int len = Math.min(b.length, 1024);
        int padded = (len + 7) & ~7;
        if (out.remaining() < HEADER + padded) {
            return false;
        }
        out.putInt(-1).putInt(kind).putInt(padded).putInt(0);
        out.put(b, 0, len);
        for (int i = len; i < padded; i++) {
            out.put((byte) ' ');
        }
        return true;
    }

    /** {@return how many elements of 8 bytes fit now} */
    int room() {
        return out.remaining() / 8;
    }

    /** Queues {@code n <= room()} values of {@code buf} from {@code at}. */
    void putValues(Object buf, int at, int n) {
        int pos = out.position();
        if (pos % 8 != 0) {
            throw new IllegalStateException("unaligned out buffer");
        }
        if (buf instanceof double[] d) {
            outDoubles.limit(pos / 8 + n).position(pos / 8);
            outDoubles.put(d, at, n);
        } else {
            outLongs.limit(pos / 8 + n).position(pos / 8);
            outLongs.put((long[]) buf, at, n);
        }
        out.position(pos + 8 * n);
    }
}
