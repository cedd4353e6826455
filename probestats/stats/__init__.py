"""Statistics: numbers in, numbers out (sign-flip and sign tests, intervals, the omnibus test,
multiple testing, selection rates, power simulation). No log frames, no text for people.
"""
