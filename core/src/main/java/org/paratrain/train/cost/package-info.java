/**
 * What one training step's exchange costs, one class per scheme: the cost model's
 * predictions for {@code plan}, {@code --nodes auto} and {@code --allreduce auto}.
 *
 * <p>Every formula is in the Hockney model of {@link org.paratrain.collective.Allreduce}
 * (alpha per message, beta per byte sent, gamma per byte reduced) and reads the collectives'
 * own formulas ({@link org.paratrain.collective.Allreduce#cost} and the reduce-scatter's and
 * allgather's) rather than restating them. Notation, for a step of {@code B} blocks over
 * {@code p} ranks of a model of {@code P} parameters: {@code n = P + 1} values (the loss, then
 * the gradient), and {@code r = ceil(B / p)} blocks on the busiest rank.
 *
 * <ul>
 *   <li>{@link org.paratrain.train.cost.MasterWorkerCost}: the paper's gather of every block's
 *       row to rank 0 and broadcast of the weights.</li>
 *   <li>{@link org.paratrain.train.cost.AllreduceCost}: an allreduce of the sum's words by
 *       the algorithm's formula.</li>
 *   <li>{@link org.paratrain.train.cost.ShardedCost}: a reduce-scatter of the words and an
 *       allgather of the parameters.</li>
 * </ul>
 * {@link org.paratrain.train.cost.SumCost} states what each sum sends and adds, with the
 * fixed-point conversions timed on this machine ({@link org.paratrain.train.cost.ConversionRates}).
 */
package org.paratrain.train.cost;
