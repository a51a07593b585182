"""The research example: is KL divergence a distance? (notebooks/05_research_kl.ipynb).

A library of articles with search and read tools (`corpus`), a safe calculator
(`calculator`), and a scripted researcher with two strategies (`researcher`).
"""
