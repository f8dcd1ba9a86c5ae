package org.paratrain.cli;

import org.paratrain.train.spec.TrainSpec;
import org.paratrain.train.spec.ModelSpec;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.paratrain.data.Dataset;
import org.paratrain.data.PaperFormat;
import org.paratrain.cli.experiment.BreakEven;
import org.paratrain.experiment.Provenance;
import org.paratrain.cli.experiment.Report;
import org.paratrain.experiment.RunWriter;
import org.paratrain.cli.experiment.SweepSpec;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code paratrain scale}: the paper's sweep on any data, model settings and node counts. */
@Command(name = "scale", mixinStandardHelpOptions = true,
    description = {"Run the paper's sweep on any workload, with the same outputs.",
        "Data from files (--x/--y) or generated",
        "(--samples/--features), any node counts; writes the same table, figures and analysis as paper."})
final class ScaleCommand implements Runnable {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Mixin
    SweepOptions options;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    /** Where the data comes from: files or the generator. */
    static final class Source {
        @ArgGroup(exclusive = false)
        Files files;

        @ArgGroup(exclusive = false)
        RegressionOptions generated;
    }

    /** The paper's X.in and y.in. */
    static final class Files {
        @Option(names = "--x", required = true, description = "Features file (the paper's X.in).")
        Path x;

        @Option(names = "--y", required = true, description = "Targets file (the paper's y.in).")
        Path y;
    }

    @Option(names = "--intercept", description = "Also learn a bias term.")
    boolean intercept;

    @Option(names = "--loss-reduction", defaultValue = "mean",
        description = "sum or mean of squared errors (default ${DEFAULT-VALUE}, so one learning rate fits any size).")
    String lossReduction;

    @Option(names = "--break-even", description = "Also measure from what work per rank 2 ranks beat 1.")
    boolean breakEven;

    @Override
    public void run() {
        TrainSpec defaults = TrainSpec.paper().withModel(new ModelSpec.Linear(intercept)).withEpochs(20)
            .withLearningRate(0.1).withLossReduction(TrainCommand.reduction(lossReduction));
        SweepSpec sweep = options.spec(defaults, new int[] {1, 2, 4}, 3, 1);
        Path out = options.out(Path.of("results", "scale"));
        options.check(spec.commandLine().getParseResult(), out);
        if (source.files != null) {
            InputFiles.require(source.files.x, source.files.y);
        }
        Provenance provenance = Provenance.capture(List.of(spec.commandLine().getParseResult().originalArgs()
            .toArray(String[]::new)));
        ObjectNode info = RunWriter.json().createObjectNode();
        Dataset data = load(info);
        String title = String.format(Locale.ROOT, "scaling on %d samples x %d features", data.samples(),
            data.features());
        Report.Inputs inputs = new Report.Inputs(title, data, info, sweep,
            breakEven ? BreakEven.DEFAULT_SAMPLES : null, options.mpi(sweep.nodes()));
        List<String> files;
        try (ConsoleProgress progress = new ConsoleProgress(options.quiet)) {
            files = Report.run(out, inputs, provenance, progress);
        }
        Outputs.print(spec.commandLine().getOut(), out, files);
    }

    private Dataset load(ObjectNode info) {
        if (source.files != null) {
            info.put("x", source.files.x.toString());
            info.put("y", source.files.y.toString());
            return PaperFormat.read(source.files.x, source.files.y);
        }
        source.generated.describe(info);
        return source.generated.generate().data();
    }
}
