package org.paratrain.cli;

import static org.paratrain.cli.BadInput.BIG;
import static org.paratrain.cli.BadInput.bad;
import static org.paratrain.cli.BadInput.evaluate;
import static org.paratrain.cli.BadInput.train;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.paratrain.cli.BadInput.Case;

/**
 * Bad options, of {@code train} and of the commands around it, and runs that cannot work, each
 * held to {@link BadInput}'s error contract; apart from {@link BadFileInputTest}'s bad files so
 * that each test is one topic.
 */
class BadOptionInputTest {
    static Stream<Case> cases() {
        List<Case> c = new ArrayList<>();
        options(c);
        BadInputCommands.sweepsAndBenchmarks(c);
        BadInputCommands.exports(c);
        BadInputSafetensors.exports(c);
        BadInputArrays.formatOptions(c);
        runs(c);
        return c.stream();
    }

    /** Options with values that cannot work, or that would be ignored. */
    static void options(List<Case> c) {
        c.add(bad("nodes -1", 2, "--nodes", train("--nodes", "-1")));
        c.add(bad("nodes 0", 2, "--nodes", train("--nodes", "0")));
        c.add(bad("nodes 4097", 2, "--nodes", train("--nodes", "4097")));
        c.add(bad("nodes not a number", 2, "--nodes", train("--nodes", "four")));
        c.add(bad("lr of 5 MB", 2, "--lr", train("--lr", BIG)));
        c.add(bad("lr of 5 MB, not a number", 2, "--lr|xxxx...", train("--lr", "x".repeat(5 << 20))));
        c.add(bad("model of 5 MB", 2, "--model|mmmm...", train("--model", "m".repeat(5 << 20))));
        c.add(bad("option of 5 MB", 2, "--zzzz", train("--" + "z".repeat(5 << 20))));
        c.add(bad("lr NaN", 2, "--lr", train("--lr", "NaN")));
        c.add(bad("lr with a line break", 2, "--lr", train("--lr", "0.1\nrm -rf /")));
        c.add(bad("epochs 0", 2, "--epochs", train("--epochs", "0")));
        c.add(bad("epochs too many", 2, "--epochs", train("--epochs", "20000000")));
        c.add(bad("block size -1", 2, "--block-size", train("--block-size", "-1")));
        c.add(bad("batch size -5", 2, "--batch-size", train("--batch-size", "-5")));
        c.add(bad("batch size beyond the samples", 2, "--batch-size", train("--batch-size", "1000")));
        c.add(bad("classes -1", 2, "--classes", train("--model", "softmax", "--classes", "-1")));
        c.add(bad("classes 1", 2, "--classes", train("--model", "softmax", "--classes", "1")));
        c.add(bad("allreduce native on local", 2, "--allreduce native|--backend mpi", train("--allreduce", "native")));
        c.add(bad("allreduce unknown", 2, "--allreduce", train("--allreduce", "butterfly")));
        c.add(bad("schedule step every 0", 2, "--schedule", train("--schedule", "step:0:0.5")));
        c.add(bad("schedule step factor 2", 2, "--schedule", train("--schedule", "step:10:2")));
        c.add(bad("schedule step not numbers", 2, "--schedule", train("--schedule", "step:ten:half")));
        c.add(bad("schedule step huge interval", 2, "--schedule", train("--schedule", "step:99999999999999999999:0.5")));
        c.add(bad("schedule unknown", 2, "--schedule", train("--schedule", "linear")));
        c.add(bad("test fraction 1.5", 2, "--test-fraction", train("--test-fraction", "1.5")));
        c.add(bad("test fraction and test data", 2, "--test-fraction|--test-data", train("--test-fraction", "0.5",
            "--test-data", "@X.in", "--test-labels", "@y.in")));
        c.add(bad("loss reduction median", 2, "--loss-reduction", train("--loss-reduction", "median")));
        c.add(bad("optimizer sgd", 2, "--optimizer", train("--optimizer", "sgd")));
        c.add(bad("model forest", 2, "--model", train("--model", "forest")));
        c.add(bad("momentum 1.5", 2, "--momentum", train("--optimizer", "momentum", "--momentum", "1.5")));
        c.add(bad("layers 0", 2, "--layers", train("--model", "mlp", "--layers", "0")));
        c.add(bad("format xyz", 2, "--format", train("--format", "xyz")));
        c.add(bad("backend gpu", 2, "--backend", train("--backend", "gpu")));
        c.add(bad("unknown option", 2, "--epoch", train("--epoch", "3")));
        c.add(bad("missing required option", 2, "--data", "train", "--y", "@y.in"));
        c.add(bad("layers without an MLP", 2, "--layers", train("--layers", "5")));
        c.add(bad("activation without an MLP", 2, "--activation", train("--model", "logistic", "--y", "@labels.in",
            "--activation", "tanh")));
        c.add(bad("momentum with gd", 2, "--momentum", train("--momentum", "0.5")));
        c.add(bad("momentum with adam", 2, "--momentum", train("--optimizer", "adam", "--momentum", "0.5")));
        c.add(bad("classes with linear", 2, "--classes", train("--classes", "3")));
        c.add(bad("intercept with an MLP", 2, "--intercept", train("--model", "mlp", "--y", "@labels.in",
            "--intercept")));
        c.add(bad("test labels without test data", 2, "--test-labels", train("--test-labels", "@y.in")));
        c.add(bad("seed without effect", 2, "--seed", train("--seed", "3")));
        c.add(bad("warm-up beyond the run", 2, "--warmup-steps", train("--warmup-steps", "500")));
        c.add(bad("warm-up beyond a mini-batch run", 2, "--warmup-steps", train("--batch-size", "5",
            "--warmup-steps", "13")));
        c.add(bad("hostfile with local", 2, "--hostfile", train("--hostfile", "@X.in")));
        c.add(bad("hostfile is a directory", 2, "--hostfile|directory", train("--backend", "mpi", "--nodes", "2",
            "--hostfile", "@sub")));
        c.add(bad("precision unknown", 2, "--precision|float16", train("--model", "mlp", "--y", "@labels.in",
            "--precision", "float16")));
        c.add(bad("cnn layer not a layer", 2, "--layers|conv:32|conv:FILTERS:KERNEL", train("--model", "cnn", "--y",
            "@labels.in", "--layers", "conv:32")));
        c.add(bad("cnn without layers", 2, "--layers", train("--model", "cnn", "--y", "@labels.in")));
        c.add(bad("cnn dropout rate of 1", 2, "--layers|dropout:1|below 1", train("--model", "cnn", "--y",
            "@labels.in", "--layers", "dense:4,dropout:1")));
        c.add(bad("mlp dropout before a width", 2, "--layers|dropout:RATE after a hidden width", train("--model", "mlp",
            "--y", "@labels.in", "--layers", "dropout:0.5,8")));
        c.add(bad("clip norm negative", 2, "--clip-norm|positive", train("--clip-norm", "-1")));
        c.add(bad("class weights on a regression", 2, "--class-weight|classifiers", train("--class-weight", "1,2")));
        c.add(bad("label smoothing on a regression", 2, "--label-smoothing|classifiers",
            train("--label-smoothing", "0.1")));
        c.add(bad("class weight not a number", 2, "--class-weight|'x'", train("--model", "logistic", "--y",
            "@labels.in", "--class-weight", "1,x")));
        c.add(bad("class weights not one a class", 2, "--class-weight|2 classes|3 weights", train("--model",
            "logistic", "--y", "@labels.in", "--class-weight", "1,2,3")));
        c.add(bad("label smoothing of 1", 2, "--label-smoothing|[0, 1)", train("--model", "logistic", "--y",
            "@labels.in", "--label-smoothing", "1")));
        c.add(bad("plateau without validation data", 2, "--plateau-patience|--val-fraction",
            train("--plateau-patience", "3")));
        c.add(bad("plateau factor of 1", 2, "--plateau-factor|(0, 1)", train("--plateau-patience", "3",
            "--plateau-factor", "1")));
        c.add(bad("bucket size not a number", 2, "--bucket-size|'64kb'", train("--bucket-size", "64kb")));
        c.add(bad("bucket size negative", 2, "--bucket-size|'-1'", train("--bucket-size", "-1")));
        c.add(bad("half words with a sharded optimizer", 2, "--sum|fixed:half|sharded", train("--allreduce", "ring",
            "--shard-optimizer", "--sum", "fixed:half")));
        c.add(bad("half words of too many blocks", 2, "fixed:half|16384 blocks|--block-size", train("--x", "@big.in",
            "--y", "@bigy.in", "--block-size", "1", "--sum", "fixed:half")));
        c.add(bad("auto on MPI beyond the words the ranks time", 2, "--allreduce auto|words|name the allreduce",
            train("--backend", "mpi", "--nodes", "2", "--allreduce", "auto", "--model", "mlp", "--y", "@labels.in",
                "--layers", "4200,4200")));
        c.add(bad("clip norm with a sharded optimizer", 2, "--clip-norm|--shard-optimizer", train("--clip-norm", "1",
            "--allreduce", "ring", "--shard-optimizer")));
        c.add(bad("cnn with an activation", 2, "--activation", train("--model", "cnn", "--y", "@labels.in",
            "--layers", "dense:4", "--activation", "tanh")));
        c.add(bad("image shape without a cnn", 2, "--image-shape", train("--image-shape", "1x2x1")));
        c.add(bad("image shape not three sizes", 2, "--image-shape|HEIGHTxWIDTHxCHANNELS", train("--model", "cnn",
            "--y", "@labels.in", "--layers", "dense:4", "--image-shape", "2x1")));
        c.add(bad("cnn features not a square image", 2, "--image-shape|2 features", train("--model", "cnn", "--y",
            "@labels.in", "--layers", "dense:4")));
        c.add(bad("cnn image shape not the features", 2, "--image-shape|5x5x1|2 features", train("--model", "cnn",
            "--y", "@labels.in", "--layers", "dense:4", "--image-shape", "5x5x1")));
        c.add(bad("cnn kernel larger than the image", 2, "--layers|conv:4:3|1x2x1", train("--model", "cnn", "--y",
            "@labels.in", "--layers", "conv:4:3", "--image-shape", "1x2x1")));
        c.add(bad("cnn of too many parameters", 2, "--layers|array", train("--model", "cnn", "--y", "@labels.in",
            "--layers", "dense:65536,dense:65536", "--image-shape", "1x2x1")));
        c.add(bad("cnn of too many parameters in float32", 2, "--layers|array", train("--model", "cnn", "--y",
            "@labels.in", "--layers", "dense:65536,dense:65536", "--image-shape", "1x2x1", "--precision", "float32")));
        c.add(bad("image shape of zero", 2, "--image-shape", train("--model", "cnn", "--y", "@labels.in",
            "--layers", "dense:4", "--image-shape", "0x2x1")));
        c.add(bad("float32 with a linear model", 2, "--precision|networks", train("--precision", "float32")));
        c.add(bad("ranks per process with local", 2, "--ranks-per-process", train("--ranks-per-process", "2")));
        c.add(bad("ranks per process not a number", 2, "--ranks-per-process|whole number", train("--backend", "mpi",
            "--nodes", "2", "--ranks-per-process", "two")));
        c.add(bad("ranks per process zero", 2, "--ranks-per-process|1 to 64", train("--backend", "mpi", "--nodes", "2",
            "--ranks-per-process", "0")));
        c.add(bad("ranks per process too many", 2, "--ranks-per-process|1 to 64", train("--backend", "mpi", "--nodes",
            "130", "--ranks-per-process", "65")));
        c.add(bad("nodes not a multiple of ranks per process", 2, "--nodes 6|--ranks-per-process 4", train("--backend",
            "mpi", "--nodes", "6", "--ranks-per-process", "4")));
        c.add(bad("native sharded with ranks as threads", 2, "--shard-optimizer|--ranks-per-process", train("--backend",
            "mpi", "--nodes", "4", "--ranks-per-process", "2", "--allreduce", "native", "--shard-optimizer")));
        c.add(bad("shared on MPI", 2, "--allreduce shared|local backend", train("--backend", "mpi", "--nodes", "2",
            "--allreduce", "shared")));
        c.add(bad("shared with a sharded optimizer", 2, "--shard-optimizer|--allreduce shared", train("--allreduce",
            "shared", "--shard-optimizer")));
        c.add(bad("rebalance negative", 2, "--rebalance|0 for never", train("--nodes", "2", "--rebalance", "-1")));
        c.add(bad("rebalance not a number", 2, "--rebalance|or auto", train("--nodes", "2", "--rebalance", "often")));
        c.add(bad("rebalance too long", 2, "--rebalance|100000", train("--nodes", "2", "--rebalance", "100001")));
        c.add(bad("rebalance with shared", 2, "--rebalance|--allreduce shared", train("--nodes", "2", "--allreduce",
            "shared", "--rebalance", "10")));
        c.add(bad("rebalance with a float sum", 2, "--rebalance|--sum float", train("--nodes", "2", "--allreduce",
            "ring", "--sum", "float", "--rebalance", "10")));
        c.add(bad("label column with paper", 2, "--label", train("--label", "y")));
        c.add(bad("generate data beyond the largest double", 2, "--bias|--noise", "generate", "regression",
            "--samples", "100", "--features", "3", "--bias", "1.7e308", "--noise", "1e308", "--out", "@g"));
        c.add(bad("epochs below one", 2, "--epochs", train("--epochs", "-1")));
        c.add(bad("data from a character device", 1, "/dev/zero|character device", "train", "--x", "/dev/zero",
            "--y", "@y.in"));
        c.add(bad("labels file with csv", 2, "--labels", "train", "--format", "csv", "--x", "@d.csv",
            "--labels", "@y.in"));
        c.add(bad("out is a file", 2, "--out|not a directory", train("--out", "@X.in")));
        c.add(bad("out under a file", 2, "--out|not a directory", train("--out", "@X.in/run")));
        c.add(bad("out read-only", 2, "--out|permission denied", train("--out", "@READONLY/run")));
        c.add(bad("predict out is a directory", 2, "--out|directory", "predict", "--model-file", "@model.json",
            "--x", "@X.in", "--out", "@sub"));
        c.add(bad("predict labels with paper", 2, "--labels", "predict", "--model-file", "@model.json",
            "--x", "@X.in", "--y", "@y.in", "--out", "@p.txt"));
        c.add(bad("evaluate label column with paper", 2, "--label", evaluate("--label", "y")));
        c.add(bad("train sum unknown", 2, "--sum|fixed:3", train("--allreduce", "ring", "--sum", "fixed:3")));
        c.add(bad("early stop on the test data", 2, "--early-stop|--val-fraction", train("--test-fraction", "0.2",
            "--early-stop", "3")));
        c.add(bad("validate every without validation data", 2, "--validate-every|--val-data", train("--validate-every",
            "2")));
        c.add(bad("early stop with validation off", 2, "--early-stop|--validate-every 0", train("--val-fraction", "0.2",
            "--early-stop", "3", "--validate-every", "0")));
        c.add(bad("validation fraction of one", 2, "validation fraction|[0, 1)", train("--val-fraction", "1")));
        c.add(bad("validation data and fraction", 2, "validation data|either", train("--val-fraction", "0.2",
            "--val-data", "@X.in", "--val-labels", "@y.in")));
        c.add(bad("features with the paper's format", 2, "--features|CSV", train("--features", "a")));
        c.add(bad("features and dropped columns", 2, "--features|--drop-columns", "train", "--format", "csv", "--x",
            "@d.csv", "--features", "a", "--drop-columns", "b"));
        c.add(bad("a feature the csv lacks", 1, "d.csv|no column 'zz'", "train", "--format", "csv", "--x", "@d.csv",
            "--features", "a,zz"));
        c.add(bad("a column to drop the csv lacks", 1, "d.csv|no column 'zz' to drop", "train", "--format", "csv",
            "--x", "@d.csv", "--drop-columns", "zz"));
    }

    /** Runs that cannot work: divergence, memory. */
    static void runs(List<Case> c) {
        c.add(bad("adam oscillating at lr 1e6", 1, "diverged|--lr", train("--optimizer", "adam", "--lr", "1e6",
            "--loss-reduction", "mean", "--epochs", "100")));
        c.add(bad("blow-up shorter than the patience", 1, "diverged|--lr", train("--lr", "1e3", "--epochs", "3")));
        c.add(bad("network too large for an array", 2, "--layers", train("--model", "mlp-regression", "--layers",
            "100000,100000")));
        c.add(bad("exchange table too large", 2, "--block-size", train("--model", "mlp-regression", "--layers",
            "20000,20000")));
        c.add(bad("training beyond the heap", 1, "PARATRAIN_JAVA_OPTS=-Xmx", train("--model", "mlp-regression",
            "--layers", "20000,20000", "--block-size", "20")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void isOneLineNamingTheCauseAndWritesNothing(Case c, @TempDir Path dir) throws IOException {
        BadInput.check(c, dir);
    }
}
