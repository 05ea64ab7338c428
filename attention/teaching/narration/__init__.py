"""Each page's computed sentences and its choices of what to show, as pure functions:
plain data in, markdown out, so a test checks a sentence without running a page."""
