package org.paratrain.cli.bench;


import org.paratrain.comm.BackendException;
import picocli.CommandLine.Command;

/**
 * Another process busy on one core, for as long as this object is open: this program again,
 * spinning one thread ({@link Spin}). It ends when closed, at this JVM's exit, and by itself
 * once this JVM is gone (its standard input closes).
 */
final class BusyProcess implements AutoCloseable {
    private final Process process;
    private final Runnable unregister;

    private BusyProcess(Process process) {
        this.process = process;
        this.unregister = org.paratrain.io.ExitCleanup.stopOnExit(process);
    }

    /** Starts it and returns once its loop runs. */
    static BusyProcess start() {
        BusyProcess busy;
        try {
            busy = new BusyProcess(ChildJvm.builder(ChildJvm.command("bench", "busy-loop")).start());
        } catch (java.io.IOException e) {
            throw new BackendException("cannot start the busy process: " + e.getMessage());
        }
        try {
            // Its JVM has started once it says so; a moment more and its loop runs compiled. The
            // JVM's own warnings (an incubator module passed on) may come first.
            var in = new java.io.BufferedReader(new java.io.InputStreamReader(busy.process.getInputStream()));
            String line = in.readLine();
            while (line != null && line.startsWith("WARNING: ")) {
                line = in.readLine();
            }
            if (!"ready".equals(line)) {
                throw new BackendException("the busy process did not start: " + line);
            }
            Thread.sleep(200);
            return busy;
        } catch (java.io.IOException | RuntimeException e) {
            busy.close();
            throw e instanceof RuntimeException r ? r
                : new BackendException("the busy process did not start: " + e.getMessage());
        } catch (InterruptedException e) {
            busy.close();
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted");
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        unregister.run();
    }

    /** Spins one thread until killed, or until its parent goes (its standard input closes). */
    @Command(name = "busy-loop", hidden = true)
    static final class Spin implements Runnable {
        static volatile double sink;

        @Override
        public void run() {
            Thread watch = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // wait for end of input
                    }
                } catch (java.io.IOException e) {
                    // the parent is gone either way
                }
                Runtime.getRuntime().halt(0);
            });
            watch.setDaemon(true);
            watch.start();
            System.out.println("ready");
            System.out.flush();
            double x = 1;
            while (true) {
                for (int i = 0; i < 1_000_000; i++) {
                    x = x * 1.0000001 + 1e-9;
                }
                sink = x;
            }
        }
    }
}
