package org.paratrain.comm.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.paratrain.LauncherImitation;
import org.paratrain.cli.Main;

/**
 * {@code train --backend mpi --hostfile} across the hosts, and docs/mpi.md's "Several hosts" lines
 * as written: the bits of the local backend; apart from {@link MultiHostNetnsLinksTest}, which
 * checks the hosts' network itself.
 */
class MultiHostNetnsTrainingTest extends MultiHostNetnsFixture {
    /**
     * Ring allreduce, the fixed-point and the block-table sum, at 2 ranks (one a host) and 4 (two a
     * host), and as threads: 4 ranks as 2 processes of 2, 8 as 2 of 4 (a process a host): the bits
     * of the local backend, and the second host's daemon and ranks took part.
     */
    @ParameterizedTest(name = "{0} ranks, --sum {1}, {2} a process")
    @CsvSource({"2, fixed, 1", "4, fixed, 1", "2, blocks, 1", "4, blocks, 1", "4, fixed, 2", "8, blocks, 4"})
    void sameBitsAsTheLocalBackend(int ranks, String sum, int perProcess) throws Exception {
        List<String> train = List.of("train", "--x", dir.resolve("data/X.in").toString(), "--y",
            dir.resolve("data/y.in").toString(), "--nodes", Integer.toString(ranks), "--allreduce", "ring", "--sum",
            sum);
        Path out = dir.resolve("netns-" + ranks + "-" + sum + "-" + perProcess);
        long before = bytesOnEth0(NAME + "1");
        int launches = Files.readAllLines(agentLog(hosts)).size();
        List<String> cmd = new ArrayList<>(List.of("exec", LauncherImitation.java(), "--enable-native-access=ALL-UNNAMED",
            "-cp", LauncherImitation.classPath(), Main.class.getName()));
        cmd.addAll(train);
        cmd.addAll(List.of("--backend", "mpi", "--hostfile", hosts.resolve("hostfile").toString(), "--mpirun-args",
            "--mca plm_rsh_agent " + hosts.resolve("rsh-agent") + " --mca btl tcp,self", "--ranks-per-process",
            Integer.toString(perProcess), "--out", out.toString()));
        Run job = script(cmd.toArray(String[]::new));
        assertEquals(0, job.status(), job.output());

        List<String> agent = Files.readAllLines(agentLog(hosts));
        assertEquals(launches + 1, agent.size(), "one daemon started through the agent: " + agent);
        assertTrue(agent.getLast().startsWith(SUBNET + ".2 " + NAME + "1: "), agent.getLast());
        long crossed = bytesOnEth0(NAME + "1") - before;
        assertTrue(crossed > 300 * 8, "the second host's eth0 carried only " + crossed + " bytes");

        Path local = dir.resolve("local-" + ranks + "-" + sum + "-" + perProcess);
        List<String> localArgs = new ArrayList<>(train);
        localArgs.addAll(List.of("--out", local.toString()));
        StringWriter err = new StringWriter();
        assertEquals(0, Main.execute(new PrintWriter(new StringWriter()), new PrintWriter(err),
            localArgs.toArray(String[]::new)), err.toString());
        assertSameBits(local, out);
        JsonNode r = new ObjectMapper().readTree(out.resolve("result.json").toFile());
        assertEquals("mpi", r.get("backend").asText());
        assertEquals(ranks, r.get("nodes").asInt());
    }

    /**
     * The "Several hosts" lines of docs/mpi.md, as written, in order, in an empty directory (with
     * {@code ./paratrain} running this build's classes, as in ReadmeCommandsTest, and
     * {@code scripts/}); the run across namespaces gives the bits of the local one beside it.
     */
    @Test
    void docCommandsRunAsWritten() throws Exception {
        Path work = Files.createDirectories(dir.resolve("doc"));
        Files.createSymbolicLink(work.resolve("scripts"), SCRIPT.getParent());
        LauncherImitation.write(work.resolve("paratrain"));
        List<String> commands = section(Path.of("docs", "mpi.md"), "## Several hosts");
        assertTrue(commands.stream().anyMatch(c -> c.startsWith("scripts/multihost-netns.sh run ")), commands.toString());
        try {
            for (String c : commands) {
                Run r = run(List.of("bash", "-e", "-c", c), Map.of(), work);
                assertEquals(0, r.status(), c + "\n" + r.output());
            }
            assertSameBits(work.resolve("results/local4"), work.resolve("results/netns4"));
        } finally {
            run(List.of("bash", SCRIPT.toString(), "down"), Map.of(), work);
            Files.deleteIfExists(work.resolve("scripts"));   // the link only
        }
    }

    private static void assertSameBits(Path expected, Path actual) throws IOException {
        ObjectMapper json = new ObjectMapper();
        JsonNode e = json.readTree(expected.resolve("result.json").toFile());
        JsonNode a = json.readTree(actual.resolve("result.json").toFile());
        assertEquals(e.get("params").size(), a.get("params").size());
        for (int i = 0; i < e.get("params").size(); i++) {
            assertEquals(bits(e.get("params").get(i)), bits(a.get("params").get(i)), "params[" + i + "]");
        }
        assertEquals(bits(e.get("final_loss")), bits(a.get("final_loss")), "final_loss");
        assertEquals(lossColumn(expected), lossColumn(actual), "every epoch's loss");
    }

    private static long bits(JsonNode n) {
        return Double.doubleToRawLongBits(n.asDouble());
    }

    /** The loss column of history.csv, as written (the shortest decimal of each double: same text, same bits). */
    private static List<String> lossColumn(Path run) throws IOException {
        List<String> lines = Files.readAllLines(run.resolve("history.csv"));
        int col = Arrays.asList(lines.getFirst().split(",")).indexOf("loss");
        assertTrue(col >= 0, "no loss column: " + lines.getFirst());
        return lines.stream().skip(1).map(l -> l.split(",")[col]).toList();
    }

    /** The commands of a page's {@code ```sh} blocks under this heading, continuation lines joined. */
    private static List<String> section(Path page, String heading) throws IOException {
        List<String> lines = Files.readAllLines(page);
        int start = lines.indexOf(heading);
        assertTrue(start >= 0, page + " has no line " + heading);
        List<String> commands = new ArrayList<>();
        boolean inSh = false;
        StringBuilder pending = new StringBuilder();
        for (String line : lines.subList(start + 1, lines.size())) {
            if (!inSh && line.startsWith("#")) {
                break;   // the next heading
            }
            if (line.startsWith("```")) {
                inSh = !inSh && line.strip().equals("```sh");
            } else if (inSh && line.endsWith("\\")) {
                pending.append(line, 0, line.length() - 1).append(' ');
            } else if (inSh && (!line.isBlank() || !pending.isEmpty())) {
                commands.add(pending.append(line).toString().replaceAll("\\s+", " ").strip());
                pending.setLength(0);
            }
        }
        return commands;
    }

    private static Path agentLog(Path hostsDir) throws IOException {
        Path log = hostsDir.resolve("agent.log");
        if (!Files.exists(log)) {
            Files.createFile(log);
        }
        return log;
    }

    private static long bytesOnEth0(String ns) throws Exception {
        Run rx = run(List.of("ip", "netns", "exec", ns, "cat", "/sys/class/net/eth0/statistics/rx_bytes"), Map.of(), dir);
        assertEquals(0, rx.status(), rx.output());
        return Long.parseLong(rx.output().strip());
    }
}
