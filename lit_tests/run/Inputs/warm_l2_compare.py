"""warm_l2.test's check: the cold and warm reports of a model that fits in L2 and of one that does not."""
import json
import sys

fits_cold, fits_warm, spills_cold, spills_warm = (json.load(open(p)) for p in sys.argv[1:5])
assert fits_warm["makespan_us"] < fits_cold["makespan_us"], (fits_warm["makespan_us"], fits_cold["makespan_us"])
assert fits_warm["graph_lower_bound"]["bound_us"] <= fits_warm["makespan_us"] + 1e-3
print("fits: warm faster, bound holds")
assert spills_warm["makespan_us"] == spills_cold["makespan_us"]
print("spills: warm as cold")
