"""The Python module over libddiosim (python/ddiosim, docs/api.md): the
results are the CLI's JSON documents as dicts, errors raise ddiosim.Error.
Run with the library given by DDIOSIM_LIB (ctest does)."""

import json
import os
import unittest

import ddiosim

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TRACE = os.path.join(SRC, "traces", "samples", "ddio-ring.din")


class TestDdiosim(unittest.TestCase):
    def test_predict_gives_the_bounds_of_each_rate(self):
        r = ddiosim.predict(machine="skylake-6140", rx_ring=512, cores=2)
        write = next(v for k, v in r.items() if k.startswith("pcie_write_hit"))
        self.assertLessEqual(write["lower"], write["upper"])
        self.assertEqual(r["input"]["cores"], 2)
        self.assertEqual(r["input"]["rx_ring"], 512)

    def test_flags_lists_and_inline_machines(self):
        with open(os.path.join(SRC, "configs", "machines", "skylake-6132.json")) as f:
            machine = json.load(f)
        a = ddiosim.predict(machine=machine, queues="10,20,5,5", explain=True, set=["workload.cores=1"])
        b = ddiosim.predict(machine="skylake-6132", queues="10,20,5,5", explain=True, set=["workload.cores=1"])
        self.assertIn("explain", a)
        self.assertEqual(a["input"], b["input"])
        self.assertEqual(a["queues"], b["queues"])

    def test_simulate_and_cache_replay(self):
        s = ddiosim.simulate(packets=20000, profile="imix", seed=7)
        self.assertIsInstance(s, dict)
        self.assertEqual(s, ddiosim.simulate(packets=20000, profile="imix", seed=7) | {
            k: s[k] for k in s if "wall" in k or "mpps" in k})  # the same run, but for its clock
        c = ddiosim.cache_replay(TRACE, ways=8, policy="lru")
        self.assertIsInstance(c, dict)

    def test_an_error_raises_with_the_message_and_code(self):
        with self.assertRaises(ddiosim.Error) as cm:
            ddiosim.predict(rx_ring=500)
        self.assertEqual(cm.exception.code, 2)
        self.assertEqual(str(cm.exception), "--rx-ring: 500 is not a power of two")
        with self.assertRaises(ddiosim.Error) as cm:
            ddiosim.predict(no_such_option=1)
        self.assertIn("--no-such-option", str(cm.exception))

    def test_warnings_are_python_warnings(self):
        import warnings
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ddiosim.predict(rate=1000)
        self.assertTrue(any("above the NIC's 100 Gb/s line rate" in str(x.message) for x in w), [str(x.message) for x in w])
        with self.assertRaises(ddiosim.Error) as cm:
            ddiosim.predict(forma="table")
        self.assertEqual(cm.exception.code, 2)

    def test_versions(self):
        self.assertEqual(ddiosim.api_version(), ddiosim.API_VERSION)
        self.assertRegex(ddiosim.version(), r"^\d+\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main()
