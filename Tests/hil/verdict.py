"""What the guest's Python scenarios share: a run ends in a verdict line,
never a bare traceback."""
import sys
import traceback


def run(main, name):
    """sys.exit(main()), with an exception said as the scenario's failure in words."""
    try:
        sys.exit(main())
    except Exception as e:
        traceback.print_exc()
        print(f"FAIL {name}: the scenario ended in {type(e).__name__}: {e}", flush=True)
        sys.exit(1)
