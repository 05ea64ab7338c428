"""What the app says and in what order: the Lesson, the lecture's exact picture, the
starting sentences and each page's computed sentences (narration/)."""
