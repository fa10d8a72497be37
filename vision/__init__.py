"""Frames in, card observations out.

Camera sources (`vision.sources`), the play mats (`vision.mats`), the card art that is
printed and also matched against (`vision.art`, `vision.printing`), the synthetic table
that stands in for a camera (`vision.synthetic`), and the recognition stages. `vision`
knows decks (`companion.cards`) but never a game engine (`companion.games`).
"""
