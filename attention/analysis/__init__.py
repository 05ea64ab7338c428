"""What heads do, measured: metrics and roles, feed-forward reads, update ratios, rank
collapse, rollout, ablation, pruning and the paraphrase task."""
