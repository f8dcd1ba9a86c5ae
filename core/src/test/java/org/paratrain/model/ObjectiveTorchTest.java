package org.paratrain.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.paratrain.PythonReference;
import org.paratrain.data.Dataset;

/**
 * Label smoothing and class weights against PyTorch's {@code cross_entropy} (summed), loss and
 * gradient by autograd: logits drawn by torch are the features of a softmax regression whose
 * weights are the identity, so its logits are torch's to the bit and its weight gradient is
 * {@code delta^T z}, as autograd's of {@code z @ W.T}. Skipped without torch, unless
 * {@code PARATRAIN_REQUIRE_TORCH} is set.
 */
class ObjectiveTorchTest {
    @TempDir
    Path dir;

    private static final int N = 40;
    private static final int K = 4;

    @Test
    void smoothingAndWeightsAreTorchs() throws IOException {
        PythonReference.needTorch();
        PythonReference.run(dir, """
            import torch
            torch.manual_seed(3)
            z = (3 * torch.randn(%d, %d)).double()
            y = torch.randint(0, %d, (%d,))
            z.numpy().astype('<f8').tofile('z'); y.double().numpy().astype('<f8').tofile('y')
            for name, kw in (("smooth", dict(label_smoothing=0.15)),
                             ("weights", dict(weight=torch.tensor([0.5, 2.0, 1.0, 3.0], dtype=torch.float64)))):
                w = torch.eye(%d, dtype=torch.float64, requires_grad=True)
                loss = torch.nn.functional.cross_entropy(z @ w.T, y, reduction="sum", **kw)
                loss.backward()
                torch.cat([loss.detach().reshape(1), w.grad.reshape(-1)]).numpy().astype('<f8').tofile(name)
            """.formatted(N, K, K, N, K));
        Dataset d = new Dataset(PythonReference.float64(dir.resolve("z")), PythonReference.float64(dir.resolve("y")),
            N, K);
        double[] identity = new double[K * K];
        for (int k = 0; k < K; k++) {
            identity[k * K + k] = 1.0;
        }
        check(d, identity, new Objective(null, 0.15), PythonReference.float64(dir.resolve("smooth")));
        check(d, identity, new Objective(new double[] {0.5, 2.0, 1.0, 3.0}, 0.0),
            PythonReference.float64(dir.resolve("weights")));
    }

    private static void check(Dataset d, double[] w, Objective o, double[] torch) {
        SoftmaxRegression m = new SoftmaxRegression(K, K, false);
        m.objective(o);
        double[] grad = new double[w.length];
        double loss = m.lossAndGradient(d, 0, N, w, grad, 0);
        assertEquals(torch[0], loss, 1e-12 * Math.abs(torch[0]), o + ": loss");
        for (int j = 0; j < w.length; j++) {
            assertEquals(torch[1 + j], grad[j], 1e-11 * Math.max(1, Math.abs(torch[1 + j])), o + ": gradient " + j);
        }
    }
}
