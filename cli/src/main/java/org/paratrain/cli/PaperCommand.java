package org.paratrain.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.paratrain.cli.experiment.BreakEven;
import org.paratrain.cli.experiment.PaperSetup;
import org.paratrain.experiment.Provenance;
import org.paratrain.cli.experiment.Report;
import org.paratrain.experiment.RunWriter;
import org.paratrain.cli.experiment.SweepSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code paratrain paper}: the paper's experiment, Table 1, its figures and the analysis. */
@Command(name = "paper", mixinStandardHelpOptions = true,
    description = {"Reproduce the paper: Table 1, its figures and the analysis, from one command.",
        "make_regression (500 x 1, no noise, random_state 42), linear regression",
        "by full-batch gradient descent for 300 epochs at 1, 2, 4, 8, 16 and 32 nodes, five timed runs each;",
        "writes Table 1, the figures, analysis.md and run.json."})
final class PaperCommand implements Runnable {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    SweepOptions options;

    @Option(names = "--no-break-even", description = "Skip measuring from what work per rank 2 ranks beat 1.")
    boolean noBreakEven;

    @Override
    public void run() {
        // An MPI rank's JVM needs about 200 of the paper's runs before C2 has compiled the loop (as
        // bench paper measured); with 20, the 2-node mean was 7.9 ms against a median of 0.96.
        SweepSpec sweep = options.spec(PaperSetup.config(), PaperSetup.NODES, 5, options.backend.isMpi() ? 200 : 20);
        Path out = options.out(Path.of("results", "paper"));
        options.check(spec.commandLine().getParseResult(), out);
        Provenance provenance = Provenance.capture(List.of(spec.commandLine().getParseResult().originalArgs()
            .toArray(String[]::new)));
        ObjectNode data = RunWriter.json().createObjectNode();
        data.put("generator", "make_regression");
        data.put("n_samples", PaperSetup.SAMPLES);
        data.put("n_features", 1);
        data.put("noise", 0.0);
        data.put("random_state", PaperSetup.RANDOM_STATE);
        Report.Inputs inputs = new Report.Inputs(PaperSetup.TITLE,
            PaperSetup.data(), data, sweep, noBreakEven ? null : BreakEven.DEFAULT_SAMPLES, options.mpi(sweep.nodes()));
        List<String> files;
        try (ConsoleProgress progress = new ConsoleProgress(options.quiet)) {
            files = Report.run(out, inputs, provenance, progress);
        }
        Outputs.print(spec.commandLine().getOut(), out, files);
    }
}
