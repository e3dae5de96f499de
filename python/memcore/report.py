"""A check's answer as one object: the data `memcore check --json` prints, with the
ways to show it (terminal text, a notebook's HTML).

    report = memcore.check("examples/kws_dscnn_int8.tflite", device="esp32")
    report.fits, report.headroom_bytes, report.layers[0]["operator"]
    report.to_json()          # exactly what `memcore check --json` prints
    report                    # in Jupyter: the verdict, the memory table, the per-layer table

`report_data()` is where a CheckReport (memcore.check module: the numbers) and the
per-operator rows (memcore.ops) become that data; everything that shows a check report,
terminal, JSON, HTML page, notebook, renders from it (memcore.render).
"""
import copy

from memcore import basis
from memcore.jsonout import finite


def report_data(report, model):
    """The memcore.report/1 object of a CheckReport of `model`: its to_json() plus the
    host-only fields the renderers and scripts need (docs/report-schema.md)."""
    data = report.to_json()
    p = report.profile
    bandwidth, ops_rate = report.bandwidth_bytes_per_second, report.ops_per_second
    rows = report.layers
    r = report.roofline
    from memcore.tflm import target_info
    tables = target_info(p.target)
    data.update({
        "device_description": p.description,
        "tflm_target": {"name": tables.name, "measured": tables.measured, "source": tables.note},
        "dtype": report.dtype,
        "kernels": report.kernels,
        "pointer_bytes": p.pointer_bytes,
        "operators": len(model.operators),
        "macs": report.batch * model.macs,
        "operations": report.operations,
        "ops_per_second": ops_rate,
        "bandwidth_bytes_per_second": bandwidth,
        "latency_budget_seconds": report.budgets.latency_for(p) or None,
        "within_latency_budget": report.within_latency_budget,
        "available_bytes_at_boot": p.available_bytes_at_boot,
        "needs_heap_growth": report.needs_heap_growth,
        "arena_region": p.arena_region,
        "flash_bytes": p.regions["flash"].size_bytes if p.has_flash else None,
        "flash_headroom_bytes": report.flash_headroom_bytes,
        "dominant_term": report.budget.dominant,
        "roofline": {"intensity": r.intensity, "bound": r.bound, "crossover_batch": r.crossover_batch,
                     "ceiling": r.ceiling},
        "peak_operator": next((row.index for row in rows if row.is_peak), None),
        "layers": [row.to_json() for row in rows],
        "model_partition": p.model_partition,
    })
    _add_bases(data, p, report)
    from memcore.render import verdict_words
    data["reason"] = verdict_words(data)["detail"]
    # JSON has no Infinity: an infinite ceiling is null here already, so the API's object
    # and what `memcore check --json` prints are the same.
    return finite(data)


def _add_bases(data, profile, report):
    """Each figure's basis (memcore.basis) beside it, and whether the fetch time is inside
    the fitted rates (no time of its own: the benchmarks the rates were fitted to read the
    same bytes)."""
    regions = {data["arena_region"], "flash" if data["weights_placement"] == "flash" else data["arena_region"]}
    included = data["latency"]["fetch_seconds"] == 0 and regions <= set(profile.traffic_in_rates)
    bases = basis.report_bases(data, profile, included)
    data["basis"] = bases[""]
    data["latency"]["fetch_in_rates"] = included
    data["latency"]["basis"] = bases["latency"]
    for name, res in data["resources"].items():
        res["basis"] = {k: v for k, v in bases["resources"].get(name, {}).items() if v}
    for s_json, suggestion in zip(data["suggestions"], report.suggestions):
        # the changed configuration's own check, on its own profile
        bases_of = check_bases(suggestion.report)["resources"]
        for name, res in s_json["resources"].items():
            res["basis"] = {k: v for k, v in bases_of.get(name, {}).items() if v}


def check_bases(report):
    """memcore.basis.report_bases of a CheckReport without its per-operator data."""
    p = report.profile
    shown = dict(report.to_json(), dtype=report.dtype, kernels=report.kernels, arena_region=p.arena_region)
    regions = {p.arena_region, "flash" if report.weights_placement == "flash" else p.arena_region}
    return basis.report_bases(shown, p, report.latency.fetch_seconds == 0 and regions <= set(p.traffic_in_rates))


class Report:
    """One model on one device.  Every field of the JSON report is an attribute
    (`report.headroom_bytes`, `report.layers`); `to_json()` gives the whole object."""

    def __init__(self, data, si=False):
        self._data = data
        self._si = si

    def __getattr__(self, name):
        try:
            return self.__dict__["_data"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._data))

    @property
    def fits(self):
        return self._data["verdict"] == "fits"

    def to_json(self):
        """The memcore.report/1 object (a copy: change it freely)."""
        return copy.deepcopy(self._data)

    def text(self, layers=False):
        """The terminal report as plain text."""
        import io

        from memcore.render import terminal_report
        from memcore.terminal import Out

        buffer = io.StringIO()
        terminal_report(self._data, Out(buffer), self._si, layers=layers)
        return buffer.getvalue()

    def __str__(self):
        return self.text()

    def __repr__(self):
        from memcore.render import verdict_words
        words = verdict_words(self._data, self._si)
        return "<memcore.Report %s on %s: %s>" % (self._data["model"], self._data["device"], words["line"])

    def _repr_html_(self):
        from memcore.render import html_report
        return '<div class="memcore-report">%s</div>' % html_report(self._data, self._si)


def check(path, device="esp32", batch=1, kernels="optimised", weights_in=None, device_file=None, si=False,
          max_latency=None, per_hour=0.0, battery=None, battery_life=None, as_int8=False, memcore_plan=False,
          input_shapes=None):
    """Will the model in `path` fit on `device` (a profile name, `memcore devices`), meet
    its budgets, and how fast: the same answer as `memcore check PATH --device DEVICE`
    with the same options, as a Report.  Budgets only as given: max_latency: seconds per
    request or a duration text ("50ms"; None: none, or the budget of the device file's
    profile; 0: none); per_hour: inferences per hour; battery: joules or a capacity text
    ("2000mAh@3.7V", "7.4Wh"); battery_life: seconds or a duration text ("30d")."""
    from memcore.check import Budgets, check as check_deployment  # the module, whatever memcore.check names
    from memcore.graph import load
    from memcore.profiles import profile
    from memcore.quantise import as_int8 as quantise
    from memcore.units import parse_battery, parse_duration

    model = load(path, input_shapes=input_shapes)
    if as_int8:
        model = quantise(model)
    found = profile(device, device_file)
    if isinstance(max_latency, str):
        max_latency = parse_duration(max_latency, "max_latency")
    budgets = Budgets(max_latency, float(per_hour or 0),
                      parse_battery(battery) if isinstance(battery, str) else float(battery or 0),
                      parse_duration(battery_life) if isinstance(battery_life, str) else float(battery_life or 0))
    return Report(report_data(check_deployment(model, found, batch, kernels, weights_in, budgets=budgets,
                                               memcore_plan=memcore_plan, device_file=device_file), model), si)
