package org.paratrain.comm.mpi;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of mpirun's output streams on its way to ours. Lines pass through as they come, except the
 * launcher's banners about a rank that ended: those are read for who ended and how, and
 * replaced by paratrain's one line (see {@link RankEnd}). Banners it does not know pass
 * through whole, since they may be the only explanation there is (a host that cannot be
 * reached, too few slots).
 *
 * <p>Known: Open MPI's dashed blocks ("mpirun noticed that process rank N with PID P on node
 * H exited on signal S", "...exited with non-zero status... Process name: [[J,1],N] Exit code:
 * C", the MPI_ABORT notice, "exiting improperly"), and MPICH hydra's "BAD TERMINATION ... PID P
 * RUNNING AT H ... EXIT CODE: C" block with its "EXIT STRING: ... (signal S)" epilogue and its
 * one-line MPI_Abort notice.
 *
 * <p>A rank that prints a line of its own ({@code paratrain: ...}) has explained the end;
 * of the ranks that time out waiting, only the first one's line is shown.
 *
 * <p>Held back: everything, when made {@linkplain #LauncherOutput(PrintStream, boolean) holding},
 * until {@link #start()} says a rank runs, since until then every line is the launcher's own and
 * a launcher that fails there (a bad option or host) is told in paratrain's one line instead
 * ({@link #reason()}); and MPI's own noise about a peer that vanished (Open MPI's "Read -1,
 * expected 5440, errno = 3", the shared-memory block a surviving rank prints when it cannot
 * open a dead one's segment, the count of repeated help messages), which follows every fault
 * and says nothing the line about the fault does not: it is shown at the end only if the job
 * succeeded ({@link #endNoise}).
 */
final class LauncherOutput {
    private static final Pattern DASHES = Pattern.compile("^-{20,}\\s*$");
    private static final Pattern EQUALS = Pattern.compile("^={20,}\\s*$");
    private static final Pattern SIGNALLED = Pattern.compile(
        "process rank (\\d+) with PID (\\d+) on node (\\S+) exited on signal (\\d+)");
    private static final Pattern NONZERO = Pattern.compile(
        "exited with non-zero status.*Process name: \\[\\[\\d+,\\d+\\],(\\d+)\\]\\s+Exit code:\\s+(\\d+)");
    private static final Pattern IMPROPER = Pattern.compile(
        "exited due to process rank (\\d+) with PID (\\d+) on node (\\S+) exiting improperly");
    private static final Pattern HYDRA = Pattern.compile(
        "BAD TERMINATION.*PID (\\d+) RUNNING AT (\\S+).*EXIT CODE: (\\d+)");
    private static final Pattern HYDRA_SIGNAL = Pattern.compile(
        "^YOUR APPLICATION TERMINATED WITH THE EXIT STRING: .*\\(signal (\\d+)\\)");
    private static final Pattern NOISE = Pattern.compile("Read -?\\d+, expected \\d+, errno = \\d+"
        + "|\\d+ more process(es)? ha(s|ve) sent help message|Set MCA parameter \"orte_base_help_aggregate\""
        + "|btl_(tcp|vader)_\\w+\\.c:\\d+|A system call failed during shared memory initialization");
    /** Lines that mean the launcher cannot start a process on some host: the job will never start. */
    private static final Pattern FATAL = Pattern.compile("^ssh: |Host key verification failed"
        + "|Permission denied \\(publickey|Could not resolve hostname");
    /** Hydra's prefix (where it failed in its own sources), which is no part of the reason. */
    private static final Pattern HYDRA_PREFIX = Pattern.compile("^\\[mpiexec@[^\\]]*\\] \\S+ \\([^)]*\\): ");
    private static final Pattern USAGE = Pattern.compile("^Type '.*--help' for usage");
    private static final Pattern QUIET = Pattern.compile("^(Abort\\(\\d+\\) on node \\d+ \\(rank \\d+ in comm"
        + "|This typically refers to a problem with your application"
        + "|Please see the FAQ page for debugging suggestions)");

    private final PrintStream to;
    private final List<RankEnd> ends = new ArrayList<>();
    private List<String> block;
    private boolean explained;
    private boolean timeoutShown;
    private boolean blankHeld;
    private volatile boolean silenced;
    /** Lines held until a rank runs, or null once one does. */
    private List<String> held;
    private final List<String> noise = new ArrayList<>();
    private String firstLine;
    private String explanation;
    private volatile boolean fatal;

    LauncherOutput(PrintStream to) {
        this(to, false);
    }

    /**
     * @param to      where lines go
     * @param holding whether to hold every line until {@link #start()}
     */
    LauncherOutput(PrintStream to, boolean holding) {
        this.to = to;
        this.held = holding ? new ArrayList<>() : null;
    }

    /** A rank runs: lines held so far pass, and from now on lines pass as they come. */
    synchronized void start() {
        if (held != null) {
            List<String> h = held;
            held = null;
            pass(h);
        }
    }

    /** {@return whether lines are still held: no rank was known to run} */
    synchronized boolean holding() {
        return held != null;
    }

    /** Drops the lines held: the launcher failed and paratrain's own line says why. */
    synchronized void dropHeld() {
        if (held != null) {
            held.clear();
        }
    }

    /** Shows MPI's noise held back if {@code show} (the job succeeded, so it is no fault's echo), else drops it. */
    synchronized void endNoise(boolean show) {
        List<String> n = List.copyOf(noise);
        noise.clear();
        if (show) {
            pass(n);
        }
    }

    /** {@return the launcher's first line of substance, without hydra's source location, or null} */
    synchronized String reason() {
        return firstLine == null ? null : HYDRA_PREFIX.matcher(firstLine).replaceFirst("").strip();
    }

    /** {@return the first line a rank printed about why the job ends, or null} */
    synchronized String explanation() {
        return explanation;
    }

    /** {@return true if, before any rank ran, the launcher said it cannot reach a host (ssh failed)} */
    boolean fatal() {
        return fatal;
    }

    /** Copies {@code in} line by line until it ends. */
    void copy(InputStream in) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                line(line);
            }
        } catch (IOException e) {
            // mpirun is gone; what it said so far has been handled.
        }
        ended();
    }

    /** The stream ended: an unclosed banner and a held blank line go the way of every line. */
    private synchronized void ended() {
        if (block != null) {
            pass(block);
            block = null;
        }
        if (blankHeld) {
            blankHeld = false;
            pass(List.of(""));
        }
    }

    /** From now on nothing passes: the job is being cancelled and its noise is not news. */
    void silence() {
        silenced = true;
    }

    /** The ranks that ended, as the launcher reported them, in order. */
    List<RankEnd> ends() {
        return List.copyOf(ends);
    }

    /** True if a rank printed its own paratrain line about why the job ends. */
    boolean explained() {
        return explained;
    }

    synchronized void line(String line) {
        boolean separator = DASHES.matcher(line).matches() || EQUALS.matcher(line).matches();
        if (!separator && !line.isBlank() && firstLine == null && !USAGE.matcher(line).find()) {
            firstLine = line;
        }
        fatal |= held != null && FATAL.matcher(line).find();
        if (block != null) {
            block.add(line);
            if (separator) {
                List<String> b = block;
                block = null;
                String text = String.join(" ", b);
                if (recognised(text)) {
                    start();    // a rank ran: what the launcher says from now on is about the job
                } else if (NOISE.matcher(text).find()) {
                    noise.addAll(b);
                } else {
                    pass(b);
                }
            }
            return;
        }
        if (blankHeld) {
            blankHeld = false;
            if (!separator) {
                pass(List.of(""));
            }
        }
        if (separator) {
            block = new ArrayList<>(List.of(line));
        } else if (line.isBlank()) {
            blankHeld = true;   // hydra opens its banner with an empty line
        } else if (NOISE.matcher(line).find()) {
            noise.add(line);
        } else if (!swallowed(line)) {
            // "rank 3 waited" or, for processes of several ranks, "ranks 2-3 (process 1) waited"
            if ((line.startsWith("paratrain: rank ") || line.startsWith("paratrain: ranks "))
                && line.contains(" waited ")) {
                if (timeoutShown) {
                    return;   // another rank that timed out too: the first line said it
                }
                timeoutShown = true;
            }
            if (line.startsWith("paratrain")) {
                explained = true;
                explanation = explanation == null ? line : explanation;
                start();
            }
            pass(List.of(line));
        }
    }

    /** Hydra's lines around its banner; the signal in its exit string completes the end it reported. */
    private boolean swallowed(String line) {
        Matcher m = HYDRA_SIGNAL.matcher(line);
        if (m.find()) {
            if (!ends.isEmpty()) {
                RankEnd last = ends.removeLast();
                ends.add(new RankEnd(last.rank(), last.pid(), last.host(), Integer.parseInt(m.group(1)), -1));
            }
            return true;
        }
        return QUIET.matcher(line).find();
    }

    /** Reads a banner; true if it was one about a rank's end (and so is not shown). */
    private boolean recognised(String text) {
        Matcher m;
        if ((m = SIGNALLED.matcher(text)).find()) {
            ends.add(new RankEnd(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), m.group(3),
                Integer.parseInt(m.group(4)), -1));
        } else if ((m = NONZERO.matcher(text)).find()) {
            ends.add(new RankEnd(Integer.parseInt(m.group(1)), 0, null, 0, Integer.parseInt(m.group(2))));
        } else if ((m = IMPROPER.matcher(text)).find()) {
            ends.add(new RankEnd(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), m.group(3), 0, -1));
        } else if ((m = HYDRA.matcher(text)).find()) {
            ends.add(new RankEnd(-1, Long.parseLong(m.group(1)), m.group(2), 0, Integer.parseInt(m.group(3))));
        } else {
            return text.contains("MPI_ABORT was invoked on rank") || text.contains("Primary job  terminated normally");
        }
        return true;
    }

    private void pass(List<String> lines) {
        if (held != null) {
            held.addAll(lines);
            return;
        }
        if (silenced) {
            return;
        }
        for (String l : lines) {
            to.println(l);
        }
        to.flush();
    }
}
