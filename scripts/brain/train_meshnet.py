"""Trains the brain MeshNet (meshnet_model.py) on nilearn's MNI152 2009c template (meshnet_data.py), seeded,
on the CPU, then quantizes, evaluates and exports it (meshnet_export.py).

    nice -n 10 python3 scripts/brain/train_meshnet.py                 # train, then export
    nice -n 10 python3 scripts/brain/train_meshnet.py --no-export     # train only
    nice -n 10 python3 scripts/brain/train_meshnet.py --export-only   # from the committed checkpoint

Training: Adam, one-cycle learning rate, cross entropy plus soft Dice, `--steps` batches of `--batch` random patches
of `--patch` voxels from outside the held-out slab and its receptive-field halo, augmented (meshnet_data.
augment). The float checkpoint (a state_dict) goes to scripts/brain/meshnet-brain.pt. At most 2 torch threads
(--threads; the committed model was trained with 1: on a crowded machine two OpenMP threads spend most of
their time waiting for each other).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from meshnet_data import augment, dice, load_template, sample_patch, slab_input, slab_labels, slab_of  # noqa: E402
from meshnet_model import MeshNet  # noqa: E402

CHECKPOINT = os.path.join(HERE, "meshnet-brain.pt")
RESULTS = os.path.join(HERE, "results.json")


def cross_entropy_and_dice(logits, y):
    """Cross entropy plus 1 - the mean over classes of the batch's soft Dice (softmax against one-hot):
    the Dice term keeps the thin grey-matter ribbon from drowning in background voxels."""
    p = logits.softmax(1)
    onehot = F.one_hot(y, logits.shape[1]).movedim(-1, 1).to(p.dtype)
    dims = (0, 2, 3, 4)
    soft_dice = (2 * (p * onehot).sum(dims) + 1) / (p.sum(dims) + onehot.sum(dims) + 1)
    return F.cross_entropy(logits, y) + 1 - soft_dice.mean()


def train(args, t1, labels):
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = MeshNet().train()
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    schedule = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    start = time.time()
    running = None
    for step in range(args.steps):
        xs, ys = zip(*(augment(*sample_patch(t1, labels, args.patch, rng), rng) for _ in range(args.batch)))
        x, y = torch.stack(xs)[:, None], torch.stack(ys)
        loss = cross_entropy_and_dice(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        schedule.step()
        running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
        if step % 20 == 0 or step == args.steps - 1:
            print(f"step {step:4d}  loss {running:.4f}  lr {schedule.get_last_lr()[0]:.2e}  "
                  f"{time.time() - start:.0f} s", flush=True)
    return model.eval(), time.time() - start


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seed", type=int, default=33)
    p.add_argument("--steps", type=int, default=800)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--patch", type=lambda s: tuple(int(v) for v in s.split(",")), default=(40, 40, 40))
    p.add_argument("--lr", type=float, default=4e-3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-export", action="store_true", help="train and save the checkpoint only")
    p.add_argument("--export-only", action="store_true", help="quantize and export the saved checkpoint")
    args = p.parse_args()
    torch.set_num_threads(min(args.threads, 2))
    print(f"seed {args.seed}  torch {torch.__version__}  threads {torch.get_num_threads()}", flush=True)
    t1, labels, affine = load_template()

    if not args.export_only:
        model, seconds = train(args, t1, labels)
        torch.save(model.state_dict(), CHECKPOINT)
        with torch.no_grad():
            pred = slab_of(model(slab_input(t1)).argmax(1)[0]).numpy()
        truth = slab_labels(labels)
        float_dice = dice(pred, truth)
        print(f"trained in {seconds:.0f} s; held-out slab Dice (float) {float_dice}")
        training = {"seed": args.seed, "steps": args.steps, "batch": args.batch, "patch": list(args.patch),
                    "lr": args.lr, "threads": torch.get_num_threads(), "seconds": round(seconds, 1),
                    "torch": torch.__version__}
        results = json.load(open(RESULTS)) if os.path.exists(RESULTS) else {}
        results["training"] = training
        with open(RESULTS, "w") as f:
            json.dump(results, f, indent=2)
    if not args.no_export:
        from meshnet_export import export_all
        export_all(t1, labels, CHECKPOINT, RESULTS, seed=args.seed)


if __name__ == "__main__":
    main()
