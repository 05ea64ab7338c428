"""What heads do, measured: metrics and roles, feed-forward reads, update ratios, rank
collapse, rollout, ablation, pruning, the paraphrase task, and the Lesson's measurements
(one query worked by hand, the feed-forward network seen from one token)."""
