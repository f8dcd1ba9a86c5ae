package org.paratrain;

import static org.paratrain.io.Executables.onPath;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.cli.Main;

/**
 * Every command the README and the pages of {@code docs/} show in their {@code ```sh} blocks,
 * run in order by bash in one empty directory, as a new user pasting them one after another
 * would: first the README's, then each page's in the order of {@link #FILES}, the order a
 * reader follows them (the README's list of the docs). Each must exit 0, or the status its
 * comment announces ({@code # exit status 2: TEXT}, TEXT then expected in the output). A page
 * may use a file that an earlier page made (a doc's own setup line is clearer where it is
 * cheap); a command that needs a file no earlier command made fails here, so the pages cannot
 * drift. Each test is named by its file and line ({@code docs/training.md:42  ./paratrain train ...}).
 *
 * <p>{@code ./paratrain} in that directory is a two-line script that runs
 * {@code java -cp <this test's class path> org.paratrain.cli.Main} with the real launcher's JVM
 * options, not the launcher itself: tests run before {@code package}, so the launcher would
 * find no jar (or a stale one) and start a Maven build inside this one; its rebuild logic is
 * not what this test checks. The script still lets {@code mpirun ... ./paratrain} lines run as
 * written, each rank running the script.
 *
 * <p>Lines that are not run, and sizes made smaller through options the pages document, are
 * the two tables below; {@link #everyTableEntryStillMatchesACommand} fails when an entry no
 * longer matches, so neither table can silently outlive the line it was made for. A page of
 * {@code docs/} that is missing from {@link #FILES} fails {@link #everyDocIsInTheOrder}
 * ({@link DocLinksTest} checks the links between the pages).
 * Commands that need MPI or Fashion-MNIST skip where those are missing, unless
 * {@code PARATRAIN_REQUIRE_MPI} or {@code PARATRAIN_REQUIRE_DATASETS} is set (as in CI).
 */
class ReadmeCommandsTest {
    /**
     * The pages whose commands run, in this order: the README, then the docs as a reader follows
     * them (the README's "Documentation" list, in its order), so that a page's commands may read
     * what an earlier page's made: training.md's evaluate lines read the iris model of the README's
     * quick start, model-format.md shows it.
     */
    static final List<String> FILES = List.of("README.md", "docs/paper.md", "docs/training.md",
        "docs/data-formats.md", "docs/model-format.md", "docs/export.md", "docs/plan.md", "docs/mpi.md", "docs/long-runs.md",
        "docs/benchmarks.md", "docs/java-api.md", "docs/spark.md", "docs/design.md");

    /** Commands (by prefix) that are not run, and why. */
    private static final Map<String, String> SKIPPED = Map.of(
        "mvn verify", "the build command itself: this test runs inside it",
        "sudo apt-get install", "installs system packages; .ci/run installs them before the build",
        "./paratrain bench ", "benchmarks: each times for minutes after warm-up, and its figures mean "
            + "something only on an idle machine, not beside a parallel build",
        "PARATRAIN_JAVA_OPTS=--add-modules=jdk.incubator.vector ./paratrain bench ", "the same benchmark with the "
            + "Vector API: a benchmark, as above (VectorKernelsTest checks the Vector API's bits)",
        "./paratrain train --backend spark ", "needs the Spark module, which builds after the command line's tests; "
            + "SparkTrainCommandTest runs the command line on Spark as these lines do",
        "spark-submit ", "needs a Spark distribution and cluster; the estimators' tests run an embedded Spark",
        "scripts/multihost-netns.sh", "makes network namespaces, which needs root; MultiHostNetnsTrainingTest runs "
            + "docs/mpi.md's \"Several hosts\" lines as written, where it can",
        "PARATRAIN_NETNS_RATE=", "makes network namespaces with shaped links, as above: MultiHostNetnsLinksTest "
            + "runs it");

    /** Smaller sizes through documented options: in the command with this prefix, replace from by to. */
    private record Smaller(String command, String from, String to) { }

    private static final List<Smaller> SMALLER = List.of(
        // 10^8 doubles (800 MB) to generate and sweep: 14 s alone; 10^5 samples show the same outputs.
        new Smaller("./paratrain scale --samples 1000000", "--samples 1000000", "--samples 100000"),
        // 15 epochs of a 203,530-parameter MLP take about half a minute; one makes the model.json that
        // the evaluate line after it reads.
        new Smaller("./paratrain train --format idx", "--epochs 15", "--epochs 1"),
        // 20 epochs of the CNN take minutes; one shows that the command runs as written.
        new Smaller("./paratrain train --model cnn --layers", "--epochs 20", "--epochs 1"),
        // The same for the CNN with batch normalisation (about 35 s an epoch).
        new Smaller("./paratrain train --model cnn --precision", "--epochs 20", "--epochs 1"),
        // 1..32 ranks, each an MPI job of JVMs, 25 runs a count: minutes. Two counts, one run each.
        new Smaller("./paratrain paper --backend mpi", "--backend mpi", "--backend mpi --nodes 1,2 --repeats 1"));

    private static final Pattern EXPECTED_STATUS = Pattern.compile("#\\s*exit status (\\d+)(?::\\s*(.*))?$");
    private static final Pattern ASSIGNMENT = Pattern.compile("^([A-Za-z_][A-Za-z0-9_]*)=(\\S+)$");
    private static final Pattern MPI_LAUNCHER = Pattern.compile("(?:^|\\s)(mpirun|mpiexec\\S*)\\s");
    private static final long TIMEOUT_SECONDS = 180;

    /** One command of a page, continuation lines joined; text without its trailing comment. */
    record Command(String file, int line, String text, String comment) {
        /** Where it is and what runs, with any smaller sizes substituted. */
        @Override
        public String toString() {
            return file + ":" + line + "  " + smaller(text);
        }
    }

    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> everyCommandOfTheReadmeAndTheDocsRunsInOrder() throws IOException {
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.createSymbolicLink(work.resolve("core"), Path.of("core").toAbsolutePath());  // the pages' fixtures
        Files.createSymbolicLink(work.resolve("examples"), Path.of("examples").toAbsolutePath());
        LauncherImitation.write(work.resolve("paratrain"));
        List<DynamicTest> tests = new ArrayList<>();
        Map<String, String> variables = new LinkedHashMap<>();
        for (Command c : commands()) {
            String script = assignments(variables) + smaller(c.text());
            Map<String, String> known = Map.copyOf(variables);
            tests.add(DynamicTest.dynamicTest(c.toString(), () -> run(c, script, known, work, logs)));
            Matcher a = ASSIGNMENT.matcher(c.text());
            if (a.matches()) {
                variables.put(a.group(1), a.group(2));   // a shell variable later commands use, as F=... is
            }
        }
        return tests.stream();
    }

    @AfterEach
    void unlinkSources() throws IOException {
        Files.deleteIfExists(tmp.resolve("work").resolve("core"));   // the link only; JUnit warns about links out
        Files.deleteIfExists(tmp.resolve("work").resolve("examples"));
    }

    @Test
    void everyTableEntryStillMatchesACommand() throws IOException {
        List<Command> all = commands();
        for (String prefix : SKIPPED.keySet()) {
            assertTrue(all.stream().anyMatch(c -> c.text().startsWith(prefix)), "no command of " + FILES
                + " starts with " + prefix + "; remove it from SKIPPED");
        }
        for (Smaller s : SMALLER) {
            List<Command> matched = all.stream().filter(c -> c.text().startsWith(s.command())).toList();
            assertEquals(1, matched.size(), "SMALLER entry " + s.command() + " must match exactly one command");
            assertTrue(matched.getFirst().text().contains(s.from()), matched.getFirst() + " no longer has " + s.from());
        }
    }

    @Test
    void everyShellBlockIsTaggedShSoThatItRuns() throws IOException {
        for (String file : FILES) {
            List<String> lines = Files.readAllLines(Path.of(file));
            for (int i = 0; i < lines.size(); i++) {
                assertFalse(lines.get(i).matches("```\\s*(bash|shell|console|zsh)\\s*"), file + ":" + (i + 1) + "  "
                    + lines.get(i) + ": tag shell blocks ```sh, or this test will not run them");
            }
        }
    }

    /**
     * Every page of docs/ is in {@link #FILES}, so its commands run; every page named there
     * exists; and the README lists the docs in that order, so a reader meets them as they run.
     */
    @Test
    void everyDocIsInTheOrder() throws IOException {
        for (String file : FILES) {
            assertTrue(Files.isRegularFile(Path.of(file)), file + " is in FILES but does not exist");
        }
        List<String> readme = Files.readAllLines(Path.of("README.md"));
        int from = readme.indexOf("## Documentation");
        assertTrue(from >= 0, "README.md has no line ## Documentation");
        List<String> listed = new ArrayList<>();
        for (String line : readme.subList(from + 1, readme.size())) {
            if (line.startsWith("#")) {
                break;
            }
            Matcher m = Pattern.compile("^- \\[[^]]*\\]\\((docs/[^)#]+)\\)").matcher(line);
            if (m.find()) {
                listed.add(m.group(1));
            }
        }
        assertEquals(FILES.subList(1, FILES.size()), listed, "README.md's Documentation list and FILES disagree");
        try (Stream<Path> docs = Files.walk(Path.of("docs"))) {
            for (Path doc : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
                String name = doc.toString().replace(File.separatorChar, '/');
                assertTrue(FILES.contains(name), name + " is not in ReadmeCommandsTest.FILES: add it where a reader "
                    + "meets it, so that its commands run after those that make their files");
            }
        }
    }

    /** The commands of every {@code ```sh} block, the README's first, then each page's in {@link #FILES}' order. */
    static List<Command> commands() throws IOException {
        List<Command> commands = new ArrayList<>();
        for (String file : FILES) {
            commands.addAll(commands(file));
        }
        return commands;
    }

    /** The commands of every {@code ```sh} block of one page, in the order it shows them. */
    static List<Command> commands(String file) throws IOException {
        List<String> lines = Files.readAllLines(Path.of(file));
        List<Command> commands = new ArrayList<>();
        boolean inSh = false;
        StringBuilder pending = new StringBuilder();
        int start = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                inSh = !inSh && line.strip().equals("```sh");
                continue;
            }
            if (!inSh || (pending.isEmpty() && line.isBlank())) {
                continue;
            }
            if (pending.isEmpty()) {
                start = i + 1;
            }
            if (line.endsWith("\\")) {
                pending.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            pending.append(line);
            commands.add(command(file, start, pending.toString()));
            pending.setLength(0);
        }
        return commands;
    }

    private static Command command(String file, int line, String joined) {
        String oneSpaced = joined.replaceAll("\\s+", " ").strip();
        int hash = oneSpaced.indexOf(" #");
        return hash < 0 ? new Command(file, line, oneSpaced, "")
            : new Command(file, line, oneSpaced.substring(0, hash).strip(), oneSpaced.substring(hash + 1).strip());
    }

    private static String assignments(Map<String, String> variables) {
        StringBuilder sb = new StringBuilder();
        variables.forEach((name, value) -> sb.append(name).append('=').append(value).append('\n'));
        return sb.toString();
    }

    private static String smaller(String text) {
        for (Smaller s : SMALLER) {
            if (text.startsWith(s.command())) {
                return text.replace(s.from(), s.to());
            }
        }
        return text;
    }

    private static void run(Command c, String script, Map<String, String> variables, Path work, Path logs)
        throws IOException, InterruptedException {
        SKIPPED.forEach((prefix, why) -> Assumptions.assumeFalse(c.text().startsWith(prefix), why));
        String expanded = expand(c.text(), variables);
        if (expanded.contains("/usr/share/datasets/")) {
            require(Files.isDirectory(Path.of(expanded.replaceAll(".*(/usr/share/datasets/[^/ ]+).*", "$1"))),
                "PARATRAIN_REQUIRE_DATASETS", "the data set is not installed (apt-get install dataset-fashion-mnist)");
        }
        if (expanded.startsWith("/usr/bin/python3 ")) {
            PythonReference.needNumpy();   // Debian's numpy; skips, or fails under PARATRAIN_REQUIRE_NUMPY
            if (expanded.contains("torch")) {
                PythonReference.needTorch();   // examples/predict_torch.py; PARATRAIN_REQUIRE_TORCH as above
            }
        }
        Matcher launcher = MPI_LAUNCHER.matcher(expanded);
        boolean ownMpirun = launcher.find();
        if (ownMpirun || expanded.contains("--backend mpi")) {
            String program = ownMpirun ? launcher.group(1) : "mpirun";
            require(onPath(program), "PARATRAIN_REQUIRE_MPI", program + " is not installed");
        }
        Matcher status = EXPECTED_STATUS.matcher(c.comment());
        int expected = status.find() ? Integer.parseInt(status.group(1)) : 0;
        Path log = logs.resolve(c.file().replace('/', '_') + "-line-" + c.line() + ".log");
        long t0 = System.nanoTime();
        int got = bash(script, work, log);
        System.out.printf("%6.1f s  %s%n", (System.nanoTime() - t0) / 1e9, c);
        String output = Files.readString(log);
        assertEquals(expected, got, () -> c + " exited " + got + ":\n" + tail(output));
        if (expected != 0 && status.group(2) != null) {
            assertTrue(output.contains(status.group(2).strip()),
                c + " did not say " + status.group(2) + ":\n" + output);
        }
    }

    /** Skips where something is missing, but fails where the environment says it must be there. */
    private static void require(boolean present, String requiredBy, String why) {
        if (!present && System.getenv(requiredBy) != null) {
            fail(requiredBy + " is set, but " + why);
        }
        Assumptions.assumeTrue(present, why);
    }

    private static String expand(String text, Map<String, String> variables) {
        String out = text;
        for (Map.Entry<String, String> v : variables.entrySet()) {
            out = out.replace("$" + v.getKey(), v.getValue());
        }
        return out;
    }

    private static int bash(String script, Path work, Path log) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("bash", "-e", "-c", script).directory(work.toFile())
            .redirectErrorStream(true).redirectOutput(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.DISCARD.file()).start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            fail("still running after " + TIMEOUT_SECONDS + " s:\n" + tail(Files.readString(log)));
        }
        return p.exitValue();
    }

    private static String tail(String output) {
        String[] lines = output.split("\n");
        return String.join("\n", List.of(lines).subList(Math.max(0, lines.length - 30), lines.length));
    }
}
