"""Best scoring of known rolls (hindsight assignment) and the contest format around it."""
