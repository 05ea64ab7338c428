"""What the app says and in what order: the Lesson, the lecture's exact picture, the
starting sentences and the wording helpers of computed sentences."""
