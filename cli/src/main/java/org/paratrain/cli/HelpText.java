package org.paratrain.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * Lets picocli wrap the commands' descriptions as paragraphs. The descriptions are written as
 * lines of source, each an element of the annotation's array, and picocli starts every element
 * on a line of its own: a 100-character element wrapped at 80 columns left a line of two words
 * before the next element. The first sentence stays a line of its own (the summary that the
 * parent command's list shows); the rest becomes one paragraph.
 */
final class HelpText {
    private HelpText() { }

    /** Rewrites the description of {@code cli} and of every command below it. */
    static void flow(CommandLine cli) {
        CommandLine.Model.UsageMessageSpec usage = cli.getCommandSpec().usageMessage();
        usage.description(paragraphs(usage.description()));
        for (CommandLine sub : cli.getSubcommands().values()) {
            flow(sub);
        }
    }

    /** The summary (the elements up to the first that ends a sentence), then the rest as one. */
    static String[] paragraphs(String[] lines) {
        List<String> out = new ArrayList<>();
        StringBuilder part = new StringBuilder();
        for (String line : lines) {
            if (!part.isEmpty()) {
                part.append(' ');
            }
            part.append(line.strip());
            if (out.isEmpty() && part.toString().endsWith(".")) {
                out.add(part.toString());
                part.setLength(0);
            }
        }
        if (!part.isEmpty()) {
            out.add(part.toString());
        }
        return out.toArray(String[]::new);
    }
}
