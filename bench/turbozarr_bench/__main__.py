from turbozarr_bench.cli import main

raise SystemExit(main())
