package org.paratrain.cli.bench;

import java.util.List;
import org.paratrain.cli.OptionChecks;
import org.paratrain.collective.sum.FixedSumBenchmark;
import org.paratrain.comm.Communicator;
import org.paratrain.train.Backend;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The fixed-point sums beside the double allreduce, as {@code bench collectives --fixed-only}
 * times them, on the ranks of an MPI job (one a process): across the hosts of an emulated
 * cluster the vector crosses a link. {@code mpirun -np 2 paratrain bench mpi-fixed}; rank 0
 * prints the table.
 */
@Command(name = "mpi-fixed", hidden = true)
final class BenchMpiFixedCommand implements Runnable {
    @Option(names = "--values", defaultValue = "1000000")
    int values;

    @Option(names = "--allreduce", defaultValue = "ring")
    String allreduce;

    @Option(names = "--rounds", defaultValue = "5")
    int rounds;

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        OptionChecks.range("--values", values, 1, 100_000_000);
        OptionChecks.range("--rounds", rounds, 1, 1000);
        Communicator c = Backend.mpiWorld();
        List<FixedSumBenchmark.Line> lines =
            FixedSumBenchmark.onRanks(c, values, allreduce, rounds);
        if (c.rank() == 0) {
            BenchCollectivesCommand.printFixed(spec.commandLine().getOut(), lines, values, c.size()
                + " MPI processes (" + allreduce + ", " + Backend.mpiImplementation() + ")", rounds);
            spec.commandLine().getOut().flush();
        }
    }
}
