"""Writes labelled_texts.csv with Python's csv module, as a newcomer's script would: texts holding
quotes (written twice inside a quoted field), commas and line breaks, and string labels (sport 4
times, cooking and finance 3 times each: StringIndexer numbers them sport 0, cooking 1, finance 2).
Usage: python3 labelled_texts_csv.py OUT.csv"""
import csv
import sys

ROWS = [
    ("The striker scored twice, and the \"home\" crowd roared.", "sport"),
    ("Whisk the eggs,\nthen fold in the flour.", "cooking"),
    ("Shares fell 3% after the \"surprise\" rate rise.", "finance"),
    ("The keeper saved a penalty\nin extra time.", "sport"),
    ("Simmer the sauce, stirring, for \"exactly\" ten minutes.", "cooking"),
    ("The central bank held rates,\nciting inflation.", "finance"),
    ("A late goal won the derby.", "sport"),
    ("Bake the bread until golden, then let it cool.", "cooking"),
    ("Bond yields rose as investors sold, \"fearing\" debt.", "finance"),
    ("The team trained hard before the final match.", "sport"),
]

with open(sys.argv[1], "w", newline="", encoding="utf-8") as f:
    writer = csv.writer(f)
    writer.writerow(["text", "label"])
    writer.writerows(ROWS)
