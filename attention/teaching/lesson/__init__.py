"""The Lesson: the discussion Head Spaces grew from as a guided walk. Each step answers
one student's question with one computed view, sentences whose numbers are measured on
that view, and a multiple-choice question whose right answer is computed from it.

Words live in assets/lesson.toml (content.py); each step's computation is a function in
steps.py; export.py writes the whole walk as one offline HTML file.
"""
