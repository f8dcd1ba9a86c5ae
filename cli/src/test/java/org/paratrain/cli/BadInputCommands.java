package org.paratrain.cli;

import static org.paratrain.cli.BadInput.MODEL;
import static org.paratrain.cli.BadInput.bad;

import java.util.List;
import org.paratrain.cli.BadInput.Case;

/**
 * {@link BadOptionInputTest}'s cases for the commands around training: generate, plan, scale, paper,
 * the benchmarks and export. Each is one line naming the option (exit 2) or the file (exit 1),
 * and nothing written.
 */
final class BadInputCommands {
    private BadInputCommands() { }

    /** Options of generate, plan, scale, paper and bench that cannot work. */
    static void sweepsAndBenchmarks(List<Case> c) {
        c.add(bad("hostfile missing", 2, "--hostfile|no such file", "scale", "--samples", "10", "--features", "1",
            "--backend", "mpi", "--hostfile", "@nohosts", "--out", "@scale"));
        c.add(bad("bench balance slow mode unknown", 2, "--modes|free, busy or slow", "bench", "balance", "--modes",
            "slowly", "--out", "@balance"));
        c.add(bad("bench balance empty mode", 2, "--modes|empty", "bench", "balance", "--modes", "free,,busy", "--out",
            "@balance"));
        c.add(bad("bench balance trailing comma", 2, "--modes|empty", "bench", "balance", "--modes", "free,", "--out",
            "@balance"));
        c.add(bad("bench balance mode twice", 2, "--modes|twice", "bench", "balance", "--modes", "free,busy,free",
            "--out", "@balance"));
        c.add(bad("bench balance shared on MPI", 2, "--allreduce|mpi backend", "bench", "balance", "--backend", "mpi",
            "--allreduce", "shared", "--out", "@balance"));
        c.add(bad("bench balance rebalance with only shared", 2, "--rebalance|only shared", "bench", "balance",
            "--allreduce", "shared", "--rebalance", "5", "--out", "@balance"));
        c.add(bad("bench balance backend", 2, "--backend|local or mpi", "bench", "balance", "--backend", "gpu", "--out",
            "@balance"));
        c.add(bad("bench balance without an exchange", 2, "--allreduce|master-worker, shared", "bench", "balance",
            "--allreduce", "native", "--out", "@balance"));
        c.add(bad("ranks per process on paper", 2, "--ranks-per-process|whole number", "paper", "--backend", "mpi",
            "--ranks-per-process", "x", "--out", "@paper"));
        c.add(bad("generate samples 0", 2, "--samples", "generate", "regression", "--samples", "0", "--features", "1",
            "--out", "@gen"));
        c.add(bad("generate out is a file", 2, "--out", "generate", "regression", "--samples", "5", "--features", "1",
            "--out", "@X.in"));
        c.add(bad("generate bias inf", 2, "--bias", "generate", "regression", "--samples", "5", "--features", "1",
            "--bias", "inf", "--out", "@gen"));
        c.add(bad("plan nodes-max 0", 2, "--nodes-max", "plan", "--samples", "10", "--features", "1", "--nodes-max",
            "0", "--out", "@plan"));
        c.add(bad("plan out is a file", 2, "--out", "plan", "--samples", "10", "--features", "1", "--out", "@X.in"));
        c.add(bad("scale nodes 0", 2, "--nodes", "scale", "--samples", "10", "--features", "1", "--nodes", "0",
            "--out", "@scale"));
        c.add(bad("scale hostfile with local", 2, "--hostfile", "scale", "--samples", "10", "--features", "1",
            "--hostfile", "@X.in", "--out", "@scale"));
        c.add(bad("paper repeats 0", 2, "--repeats", "paper", "--repeats", "0", "--out", "@paper"));
        c.add(bad("paper sum unknown", 2, "--sum|fixed:3", "paper", "--allreduce", "ring", "--sum", "fixed:3",
            "--out", "@paper"));
        c.add(bad("paper allreduce native on local", 2, "--allreduce native|--backend mpi", "paper", "--allreduce",
            "native", "--out", "@paper"));
        c.add(bad("scale sum unknown", 2, "--sum|kahan", "scale", "--samples", "10", "--features", "1", "--sum",
            "kahan", "--out", "@scale"));
        c.add(bad("scale allreduce auto", 2, "--allreduce auto", "scale", "--samples", "10", "--features", "1",
            "--allreduce", "auto", "--out", "@scale"));
        c.add(bad("scale allreduce unknown", 2, "--allreduce|butterfly", "scale", "--samples", "10", "--features", "1",
            "--allreduce", "butterfly", "--out", "@scale"));
        c.add(bad("plan sum unknown", 2, "--sum|fixed:0", "plan", "--samples", "10", "--features", "1", "--sum",
            "fixed:0", "--out", "@plan"));
        c.add(bad("bench collectives rounds 0", 2, "--rounds", "bench", "collectives", "--rounds", "0", "--out",
            "@bench"));
        c.add(bad("bench kernels shape", 2, "--shapes", "bench", "kernels", "--shapes", "3x0"));
        c.add(bad("bench kernels repeats 0", 2, "--repeats", "bench", "kernels", "--repeats", "0"));
        c.add(bad("bench paper rounds 0", 2, "--rounds|[1, 20]", "bench", "paper", "--rounds", "0"));
        c.add(bad("paper out under a file", 2, "--out|not a directory", "paper", "--out", "@X.in/paper"));
    }

    static String[] export(String... extra) {
        return BadInput.with(new String[] {"export", "--model-file", "@model.json", "--format", "onnx", "--out",
            "@model.onnx"}, extra);
    }

    /** export: formats it does not write, outputs it must not write, model files it cannot read. */
    static void exports(List<Case> c) {
        c.add(bad("export format not written", 2, "--format pickle|onnx or safetensors", export("--format", "pickle")));
        c.add(bad("export format missing", 2, "--format", "export", "--model-file", "@model.json", "--out",
            "@model.onnx"));
        c.add(bad("export precision unknown", 2, "--precision|float16", export("--precision",
            "float16")));
        c.add(bad("export out is the model file", 2, "--out|inputs", export("--out", "@model.json")));
        c.add(bad("export out is a directory", 2, "--out|directory", export("--out", "@sub")));
        c.add(bad("export out is standard output", 2, "--out -|file name", export("--out", "-")));
        c.add(bad("export out under a file", 2, "--out|not a directory", export("--out", "@X.in/model.onnx")));
        c.add(bad("export out read-only", 2, "--out|permission denied", export("--out", "@READONLY/model.onnx")));
        c.add(bad("export model missing", 1, "none.json|no such file", export("--model-file", "@none.json")));
        c.add(bad("export model damaged", 1, "model.json|params", export()).file("model.json",
            MODEL.replace("[1.0, 2.0]", "[\"NaN\", 2.0]")));
        c.add(bad("export model data format unknown", 1, "model.json|data_format|idx", export()).file("model.json",
            MODEL.replace("\"classes\": 0,", "\"classes\": 0, \"data_format\": \"jpeg\",")));
    }
}
