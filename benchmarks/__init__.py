"""Speed and accuracy harnesses. `make bench` runs every `bench_*.py` module's `main()`;
each prints its numbers and saves them as JSON under benchmarks/results/."""
