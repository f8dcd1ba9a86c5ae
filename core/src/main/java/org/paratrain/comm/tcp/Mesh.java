package org.paratrain.comm.tcp;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;

/**
 * A rank's connections to its peers and the one selector that watches them all: what to watch
 * each for, writing what is queued, waiting for any to be ready, and the goodbye that ends them.
 * The communicator decides what the bytes mean; this only moves them.
 */
final class Mesh {
    private final PeerLink[] links;
    private final Selector selector;

    /** Watches every link (null at the rank's own place) for input. */
    Mesh(PeerLink[] links) throws IOException {
        this.links = links;
        this.selector = Selector.open();
        for (PeerLink l : links) {
            if (l != null) {
                l.channel.register(selector, SelectionKey.OP_READ, l);
            }
        }
    }

    /** Watches {@code l} for input unless it is paused, and for room to write while it has output queued. */
    void interest(PeerLink l) {
        SelectionKey k = l.channel.keyFor(selector);
        if (k != null && k.isValid()) {
            k.interestOps((l.paused ? 0 : SelectionKey.OP_READ) | (l.flushed() ? 0 : SelectionKey.OP_WRITE));
        }
    }

    /** Writes what each link's socket takes now. */
    void flushAll() throws IOException {
        for (PeerLink l : links) {
            if (l != null && !l.flushed()) {
                l.flush();
                interest(l);
            }
        }
    }

    /**
     * Hands every ready link's key to {@code onReady}, waiting up to {@code millis} (0: not at all).
     *
     * @return how many were ready
     */
    int select(Consumer<SelectionKey> onReady, long millis) throws IOException {
        return millis == 0 ? selector.selectNow(onReady) : selector.select(onReady, millis);
    }

    /**
     * Sends {@code kind} (goodbye or abort) with {@code reason} on every open link, writes what is
     * queued, waits (up to {@code waitNanos}) for the peers' own goodbyes after a goodbye, then
     * closes every socket and the selector. Never throws: the peers see the end of the stream anyway.
     */
    void farewell(int kind, String reason, long waitNanos, Consumer<SelectionKey> onReady) {
        long end = System.nanoTime() + waitNanos;
        try {
            for (PeerLink l : links) {
                if (l != null && l.channel.isOpen()) {
                    while (!l.putFarewell(kind, reason) && System.nanoTime() < end) {
                        l.flush();
                        selector.select(onReady, 1);
                    }
                    l.flush();
                    interest(l);
                }
            }
            while (System.nanoTime() < end && !allQuiet(kind)) {
                selector.select(onReady, 5);
            }
        } catch (IOException | RuntimeException e) {
            // Closing anyway.
        } finally {
            for (PeerLink l : links) {
                close(l);
            }
            try {
                selector.close();
            } catch (IOException e) {
                // Nothing more to do.
            }
        }
    }

    /** Everything written, and (after a goodbye) every peer has said its own or gone. */
    private boolean allQuiet(int kind) throws IOException {
        for (PeerLink l : links) {
            if (l == null || !l.channel.isOpen() || l.paused) {
                continue;    // a paused link holds a message nobody received: its goodbye is behind it
            }
            if (!l.flushed() && !l.flush()) {
                return false;
            }
            SelectionKey k = l.channel.keyFor(selector);
            if (kind == PeerLink.KIND_BYE && !l.said && k != null && k.isValid()) {
                return false;
            }
        }
        return true;
    }

    /** Closes a link's socket, if there is one. */
    static void close(PeerLink l) {
        if (l != null) {
            try {
                l.channel.close();
            } catch (IOException e) {
                // Nothing more to do for a socket that will not close.
            }
        }
    }
}
