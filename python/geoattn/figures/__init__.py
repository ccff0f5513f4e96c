"""The paper's figures from geoattn's JSON results alone (numpy + matplotlib, imported only
when a figure is drawn); the command line is scripts/plot_figures.py (installed: geoattn-figures),
i.e. main(argv).

    from geoattn import figures
    figures.main(["--measure", "out/measure.json", "--out", "figs"])

Modules, one job each:
  cli       the command line: arguments, which figures, writing PNG + PDF (main)
  inputs    reading and checking the input files against docs/schema (InputError)
  runs      which files go together: Model, SinkModel, taxonomies and bounds paired
  common    messages, numpy/pyplot on first use (import_plotting), colours, small helpers
  fits      Figs. 2-4: value norms, decay of c(k), the four-phase profile (heads[].fits)
  curves    Figs. 5-6: P and R against N with bands and bounds; corr(R, rho0)
  taxonomy  Figs. 7, 8, 11: the head regimes (s(N) diagnostics, labels per layer, P/R)
  heatmaps  layers x heads maps (head_map) and heatmap_P_R_labels
  sinks     --sinks: sink mass, rho0, lambda per head; dormant heads; profile by position
  frames    --sinks: attention graph per layer, frame types, anchor tokens

Each figure function takes the models (runs.Model, or runs.SinkModel for the sinks figures)
and returns a matplotlib Figure, or a string saying why it is skipped.
"""
from .cli import FIGURES, SINK_FIGURES, main, measure_drawers, parse_args, sink_drawers
from .common import import_plotting
from .curves import fig5_pr_vs_n, fig6_sink_recall_corr
from .fits import fig2_norms, fig3_decay_mae, fig4_profile, profile_model
from .frames import FRAME_COLORS, fig_sinks_anchor_tokens, fig_sinks_frames, fig_sinks_graph
from .heatmaps import fig_heatmap
from .inputs import InputError, validate_bounds, validate_measure, validate_sinks, validate_taxonomy
from .runs import Model, SinkModel, make_labels, pair_bounds, pair_taxonomies
from .sinks import fig_sinks_dormant, fig_sinks_heatmaps, fig_sinks_mass_lambda, fig_sinks_profile
from .taxonomy import fig7_s_diagnostics, fig8_labels_by_layer, fig11_regimes

__all__ = [
    "main", "parse_args", "FIGURES", "SINK_FIGURES", "measure_drawers", "sink_drawers",
    "import_plotting", "InputError", "validate_measure", "validate_bounds", "validate_taxonomy",
    "validate_sinks", "Model", "SinkModel", "pair_taxonomies", "pair_bounds", "make_labels",
    "fig2_norms", "fig3_decay_mae", "fig4_profile", "profile_model", "fig5_pr_vs_n",
    "fig6_sink_recall_corr", "fig7_s_diagnostics", "fig8_labels_by_layer", "fig11_regimes",
    "fig_heatmap", "fig_sinks_heatmaps", "fig_sinks_mass_lambda", "fig_sinks_dormant",
    "fig_sinks_graph", "fig_sinks_frames", "fig_sinks_anchor_tokens", "fig_sinks_profile",
    "FRAME_COLORS",
]
