package org.paratrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --init-from} on the MPI backend gives the bits of the local backend: every rank
 * process reads the file itself, and all start from the same parameters. Both ways an MPI rank
 * trains: on the whole data (a CSV, mini-batches) and on its own blocks only (the paper's
 * format at full batch, {@link ShardTraining}). Skipped where mpirun is missing unless
 * PARATRAIN_REQUIRE_MPI is set.
 */
class MpiInitFromTest {
    @TempDir
    Path dir;

    @Test
    void theSameBitsOnMpiAsOnTheLocalBackend() throws Exception {
        org.paratrain.NeedMpi.mpirun();
        List<String> iris = List.of("train", "--format", "csv", "--data", "core/src/test/resources/fixtures/iris.csv",
            "--label", "species", "--model", "mlp", "--layers", "8", "--epochs", "4");
        assertSameOnBothBackends("iris", iris);
        Path data = dir.resolve("data");
        assertEquals(0, CliTest.run("generate", "regression", "--samples", "3000", "--features", "5", "--noise", "1",
            "--out", data.toString()).status());
        assertSameOnBothBackends("paper", List.of("train", "--x", data.resolve("X.in").toString(), "--y",
            data.resolve("y.in").toString(), "--epochs", "20", "--lr", "1e-5"));
    }

    /** Trains {@code train}, exports it, and starts three runs from the export: local 1 and 3 ranks, MPI 2. */
    private void assertSameOnBothBackends(String name, List<String> train) throws Exception {
        Path a = dir.resolve(name + "-a");
        run(train, "--out", a.toString());
        Path st = a.resolve("model.safetensors");
        assertEquals(0, CliTest.run("export", "--model-file", a.resolve("model.json").toString(), "--format",
            "safetensors", "--out", st.toString()).status());
        List<String> params = new ArrayList<>();
        for (List<String> where : List.of(List.of("--nodes", "1"), List.of("--nodes", "3"),
            List.of("--backend", "mpi", "--nodes", "2"))) {
            Path out = dir.resolve(name + "-" + String.join("", where).replace("-", ""));
            List<String> more = new ArrayList<>(where);
            more.addAll(List.of("--init-from", st.toString(), "--out", out.toString()));
            CliTest.Run r = run(train, more.toArray(String[]::new));
            assertTrue(where.contains("mpi") || r.out().contains("starting from the parameters of"), r.out());
            params.add(new ObjectMapper().readTree(out.resolve("result.json").toFile()).get("params").toString());
            assertTrue(new ObjectMapper().readTree(out.resolve("model.json").toFile()).path("training")
                .path("init_from").path("applied").asBoolean(), name + " " + where);
        }
        assertEquals(params.getFirst(), params.get(1), name + ": 1 and 3 local ranks");
        assertEquals(params.getFirst(), params.get(2), name + ": the MPI backend");
    }

    private static CliTest.Run run(List<String> train, String... more) {
        List<String> args = new ArrayList<>(train);
        args.addAll(List.of(more));
        CliTest.Run r = CliTest.run(args.toArray(String[]::new));
        assertEquals(0, r.status(), String.join(" ", args) + "\n" + r.out() + r.err());
        return r;
    }
}
